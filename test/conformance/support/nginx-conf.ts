/**
 * Store (c)'s gateway: nginx `limit_req` in front of the compliant store (stores/memory-flexible.ts). One
 * leaky-bucket zone per plan, the key picked out of the Authorization header by its plan prefix (users name
 * keys `free-…`, `pro-…`), at the plan's published rate with the whole minute's quota as burst (`nodelay`):
 * the first plan-figure requests of a fresh key pass at once, the next is refused. nginx's own refusal is
 * its default, 503 (`limit_req_status` left alone), without X-RateLimit-* or Retry-After; its body is made a
 * JSON Error through `error_page`, as API gateways do. Requests without a plan key are not limited by nginx.
 */
export const PLAN_RATES = { free: 60, pro: 300 } as const;

export function nginxHttpBlock(port: number, upstreamPort: number, options: { jsonRefusal?: boolean } = {}): string {
  const json = options.jsonRefusal ?? true;
  const zones = Object.entries(PLAN_RATES).flatMap(([plan, perMinute]) => [
    `  map $http_authorization $${plan}_key { "~^Bearer ${plan}-" $http_authorization; default ""; }`,
    `  limit_req_zone $${plan}_key zone=${plan}:1m rate=${perMinute}r/m;`,
  ]);
  const limits = Object.entries(PLAN_RATES).map(
    ([plan, perMinute]) => `      limit_req zone=${plan} burst=${perMinute - 1} nodelay;`,
  );
  return [
    ...zones,
    `  upstream store { server 127.0.0.1:${upstreamPort}; keepalive 16; }`,
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    ...limits,
    '      proxy_pass http://store;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '      proxy_set_header X-Real-IP $remote_addr;',
    ...(json ? ['      error_page 503 = @refused;'] : []),
    '    }',
    ...(json
      ? [
          '    location @refused {',
          '      default_type application/json;',
          `      return 503 '{"code":"service_unavailable","message":"too many requests","status":503}';`,
          '    }',
        ]
      : []),
    '  }',
  ].join('\n');
}

/**
 * Corpus (g)'s balancer: nginx in front of a fleet's instances, an upstream of them in round-robin (nginx's
 * default), with no limit of its own. Every request goes to the next instance, whichever client sent it.
 */
export function nginxRoundRobinBlock(port: number, instancePorts: readonly number[]): string {
  return [
    `  upstream fleet { ${instancePorts.map((p) => `server 127.0.0.1:${p};`).join(' ')} keepalive 16; }`,
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    '      proxy_pass http://fleet;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '      proxy_set_header X-Real-IP $remote_addr;',
    '    }',
    '  }',
  ].join('\n');
}
