/**
 * Store (b): NestJS 11 on Express with @nestjs/throttler's ThrottlerGuard as a global guard, two throttlers as
 * its docs show them: the unnamed one (`default`, the key's plan figure per short window, STORE_WINDOW_S) and
 * one named `day` (the plan's daily figure). What the library sends, unchanged:
 * - `X-RateLimit-Limit` / `-Remaining` / `-Reset` for the default throttler, where Reset is the number of
 *   SECONDS UNTIL the window resets (not a Unix timestamp);
 * - the same three with the throttler's name as a SUFFIX for the named one: `X-RateLimit-Limit-day`, …;
 * - on a refusal, only `Retry-After` (seconds): the guard throws before it sets the X-RateLimit-* fields.
 * Tracked by API key (by address without a valid key). A global exception filter renders every HttpException,
 * the throttler's included, as an Error body, as teams with an error format do.
 * Env: STORE_KEYS_FILE, STORE_WINDOW_S, STORE_THROTTLERS (`named`: the short throttler is named `minute` too, so every
 * field carries a suffix, Retry-After included).
 */
import 'reflect-metadata';
import {
  Catch,
  Controller,
  Get,
  HttpException,
  Module,
  Post,
  Req,
  Res,
  type ArgumentsHost,
  type ExceptionFilter,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import express from 'express';
import type { Request, Response } from 'express';
import { announce, ANONYMOUS_LIMIT, windowSeconds } from '../support/http-glue.js';
import { authenticate, errorReply, loadStoreKeys, PetApi, unauthorized, type ApiReply } from '../support/pet-api.js';

const keys = loadStoreKeys();
const api = new PetApi();
const keyOf = (req: Request) => authenticate(keys, req.headers.authorization);
const requestOf = (ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>();
const send = (res: Response, reply: ApiReply) => res.status(reply.status).set(reply.headers).send(reply.body);

/** Decorators applied as plain calls (the corpus is compiled without decorator syntax). */
class PetsController {
  async list(req: Request, res: Response) {
    await this.answer(req, res, '/pets');
  }
  async create(req: Request, res: Response) {
    await this.answer(req, res, '/pets');
  }
  async get(req: Request, res: Response) {
    await this.answer(req, res, `/pets/${encodeURIComponent(String(req.params.id))}`);
  }
  private async answer(req: Request, res: Response, path: string) {
    if (!keyOf(req)) return send(res, unauthorized());
    const url = new URL(req.originalUrl, 'http://store');
    send(res, await api.handle(req.method, path, url.searchParams, typeof req.body === 'string' ? req.body : ''));
  }
}
Controller('v1')(PetsController);
for (const [method, decorate] of [
  ['list', Get('pets')],
  ['create', Post('pets')],
  ['get', Get('pets/:id')],
] as const) {
  const proto = PetsController.prototype;
  Req()(proto, method, 0);
  Res()(proto, method, 1);
  decorate(proto, method, Object.getOwnPropertyDescriptor(proto, method)!);
}

class ErrorBodies implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost) {
    const res = host.switchToHttp().getResponse<Response>();
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const code = status === 429 ? 'rate_limited' : status === 404 ? 'not_found' : status === 500 ? 'internal' : 'error';
    send(res, errorReply(status, code, exception instanceof Error ? exception.message : 'error'));
  }
}
Catch()(ErrorBodies);

class AppModule {}
Module({
  imports: [
    ThrottlerModule.forRoot({
      throttlers: [
        {
          ...(process.env.STORE_THROTTLERS === 'named' ? { name: 'minute' } : {}),
          ttl: windowSeconds() * 1000,
          limit: (ctx: ExecutionContext) => keyOf(requestOf(ctx))?.perMinute ?? ANONYMOUS_LIMIT,
        },
        {
          name: 'day',
          ttl: 86_400_000,
          limit: (ctx: ExecutionContext) => keyOf(requestOf(ctx))?.perDay ?? 100 * ANONYMOUS_LIMIT,
        },
      ],
      getTracker: (req: object) => keyOf(req as Request)?.key ?? String((req as Request).ip),
    }),
  ],
  controllers: [PetsController],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})(AppModule);

const app = await NestFactory.create(AppModule, { bodyParser: false, logger: ['error', 'warn'] });
app.use(express.text({ type: () => true, limit: '1mb' }));
app.useGlobalFilters(new ErrorBodies());
await app.listen(0, '127.0.0.1');
announce(app.getHttpServer());
