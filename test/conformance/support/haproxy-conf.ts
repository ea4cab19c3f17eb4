/**
 * Store (h)'s gateway: Debian's HAProxy 2.6 in front of a store without a limiter (stores/no-limiter.ts), limiting
 * the Free plan as an HAProxy rate-limit recipe does. A stick table keyed on the bearer token stores
 * `http_req_rate(60s)`: HAProxy's rate estimate over a 60 s period, the count of the current period plus the previous
 * period's weighted by the share of it still inside the last 60 s, so a burst decays over two periods; every tracked
 * request counts, the refused ones too. Over the plan's figure, HAProxy answers 429 itself, with `Retry-After: 60`
 * and a JSON Error; every answer to a Free key carries `X-RateLimit-Limit`, `-Remaining` (the figure less the
 * estimate, at least 0) and `-Reset`, which is always now + 60. Requests without a Free key are not limited or
 * annotated by HAProxy: the store answers them (401) without rate-limit headers.
 */
export const FREE_PER_MINUTE = 60;

const LIMITED = '{ var(txn.limited) -m bool }';

export function haproxyConfig(port: number, upstreamPort: number): string {
  const refusal = JSON.stringify({ code: 'rate_limited', message: 'too many requests', status: 429 });
  return [
    'global',
    '  maxconn 1024',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 10s',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  stick-table type string len 128 size 10k expire 3m store http_req_rate(60s)',
    '  acl free_key req.hdr(authorization) -m beg "Bearer free-"',
    "  http-request track-sc0 req.hdr(authorization),word(2,' ') if free_key",
    '  http-request set-var(txn.rate) sc_http_req_rate(0) if free_key',
    '  http-request set-var(txn.limited) bool(true) if free_key',
    `  http-request return status 429 content-type application/json string '${refusal}' hdr Retry-After 60 if free_key { var(txn.rate) -m int gt ${FREE_PER_MINUTE} }`,
    `  http-after-response set-header X-RateLimit-Limit ${FREE_PER_MINUTE} if ${LIMITED}`,
    `  http-after-response set-header X-RateLimit-Remaining %[int(${FREE_PER_MINUTE}),sub(txn.rate)] if ${LIMITED} { var(txn.rate) -m int le ${FREE_PER_MINUTE} }`,
    `  http-after-response set-header X-RateLimit-Remaining 0 if ${LIMITED} { var(txn.rate) -m int gt ${FREE_PER_MINUTE} }`,
    `  http-after-response set-header X-RateLimit-Reset %[date,add(60)] if ${LIMITED}`,
    '  default_backend store',
    'backend store',
    `  server store 127.0.0.1:${upstreamPort}`,
    '',
  ].join('\n');
}
