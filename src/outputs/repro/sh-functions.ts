/**
 * The shell functions a reproduction script may use, each with the functions it calls: the writer (sh.ts) puts at
 * the top of a script the ones its steps use, and nothing else. POSIX sh, curl, awk, sed, grep, tr, cut, sleep.
 */
import type { ExpectationKind } from './steps.js';

/**
 * Shell text written as a template without substitutions: as written (String.raw), but with `$\{` read as `${`, the
 * shell's own parameter expansion, which a template literal cannot hold as it is.
 */
function sh(text: TemplateStringsArray): string {
  return text.raw.join('').replaceAll('$\\{', '${');
}

interface ShFunction {
  /** The functions it calls (names of FUNCTIONS). */
  readonly uses: readonly string[];
  readonly text: string;
}

/** Always there: what every script runs on. */
export const PRELUDE = sh`tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
n=0 defects=0 unsure='' window_end=''

cannot_run() { printf 'could not run: %s\n' "$1" >&2; exit 2; }
need() { eval "v=\$\{$1:-}"; [ -n "$v" ] || cannot_run "set $1 to the key labelled $2"; }
step() { n=$((n + 1)); printf 'step %d: %s — expect %s\n' "$n" "$1" "$2"; }
also() { printf '  and expect %s\n' "$1"; }
ok() { printf '  got %s: ok\n' "$1"; }
defect() { printf '  got %s: DEFECT\n' "$1"; defects=$((defects + 1)); }
unsure() { printf '  got %s: cannot tell (%s)\n' "$1" "$2"; unsure=$2; }
# quoted TEXT: TEXT as a double-quoted value of curl's config
quoted() { printf '%s' "$1" | sed 's/[\\"]/\\&/g'; }
# config METHOD AS [BODY]: curl's options for a request sent AS a key's variable, =HEADER, or nothing (''); read by
# curl from its standard input, so that no key is ever on a command line
config() {
  printf 'request = "%s"\n' "$1"
  case "$2" in
    '') ;;
    =*) printf 'header = "Authorization: %s"\n' "$(quoted "$\{2#=}")" ;;
    *) eval "k=\$\{$2}"; printf 'header = "Authorization: Bearer %s"\n' "$(quoted "$k")" ;;
  esac
  [ $# -lt 3 ] || printf 'header = "Content-Type: application/json"\ndata-binary = "%s"\n' "$(quoted "$3")"
}
# request METHOD PATH AS [BODY]: one request; its status in $status, its headers and body in files
request() {
  m=$1 p=$2
  shift 2
  { printf 'url = "%s"\n' "$(quoted "$PETLOAD_TARGET$p")"; config "$m" "$@"; } |
    curl -sS -m 30 -K - -D "$tmp/h" -o "$tmp/b" -w '%{http_code}' >"$tmp/s" || cannot_run "no answer from $PETLOAD_TARGET$p"
  status=$(cat "$tmp/s")
  key_taken "$1" "$status"
  off_base "$p" "$status"
}
# key_taken AS CODES: a key's variable answered 401 or 403 is not this target's key (or is banned): nothing to judge
key_taken() {
  case "$1" in '' | =*) return 0 ;; esac
  case " $2 " in *[!0-9]401[!0-9]* | *[!0-9]403[!0-9]*)
    cannot_run "the target refused the key in $1 (401 or 403): set it to this target's key of that label" ;; esac
}
# off_base PATH CODES: a 404 of GET or POST /pets, which the interface always has, is a PETLOAD_TARGET that is not
# the API's base (no /v1, another path): nothing to judge ("not reproduced" would be a false "fixed")
off_base() {
  case "$1" in /pets | '/pets?'*) ;; *) return 0 ;; esac
  case " $2 " in *[!0-9]404[!0-9]*)
    cannot_run "$PETLOAD_TARGET$1 answered 404: set PETLOAD_TARGET to the API's base URL (it ends in /v1)" ;; esac
}
# header NAME: the value of that header in the last answer (empty: absent)
header() {
  awk -v n="$1" 'BEGIN { n = tolower(n) ":" } { sub(/\r$/, "") }
    tolower(substr($0, 1, length(n))) == n { v = substr($0, length(n) + 1); sub(/^[ \t]+/, "", v) } END { print v }' "$tmp/h"
}`;

const FUNCTIONS = {
  epoch: {
    uses: [],
    text: sh`# epoch DATE: an HTTP date (Sat, 28 Nov 2026 13:36:24 GMT) in seconds since 1970 (empty: none)
epoch() {
  printf '%s\n' "$1" | awk 'NF >= 5 { split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", ms, " ")
    for (i = 1; i <= 12; i++) if (ms[i] == $3) m = i
    split($5, t, ":"); y = $4 - (m <= 2); mp = (m + 9) % 12
    d = 365 * y + int(y / 4) - int(y / 100) + int(y / 400) + int((153 * mp + 2) / 5) + $2 - 1 - 719468
    print d * 86400 + t[1] * 3600 + t[2] * 60 + t[3] }'
}`,
  },
  pause: {
    uses: [],
    text: sh`# pause SECONDS: sleep that many seconds of the target's clock (PETLOAD_TIME_SCALE of them in a real second)
pause() { sleep "$(awk -v s="$1" -v k="$PETLOAD_TIME_SCALE" 'BEGIN { printf "%.3f", s / k }')"; }`,
  },
  window_left: {
    uses: ['epoch'],
    text: sh`# window_left [both]: the seconds the last answer asks to wait: Retry-After, else Reset less Date, else the t= of
# the IETF RateLimit field (empty: none of them); with both, the longer of Retry-After and Reset less Date
window_left() {
  awk -v a="$(header retry-after)" -v r="$(header x-ratelimit-reset)" -v d="$(epoch "$(header date)")" \
    -v f="$(header ratelimit)" -v both="$\{1:-}" 'BEGIN {
    if (a ~ /^[0-9]+$/ && both == "") { print a; exit }
    w = ""
    if (r ~ /^[0-9]+$/) {
      if (r > 100000000000) r = int(r / 1000)
      if (r <= 100000000) w = r; else if (d != "") w = r - d
    } else if (match(f, /t=[0-9]+/)) w = substr(f, RSTART + 2, RLENGTH - 2)
    if (a ~ /^[0-9]+$/ && (w == "" || a + 0 > w + 0)) w = a
    if (w != "") print (w + 0 < 0) ? 0 : w + 0 }'
}`,
  },
  fresh_window: {
    uses: ['window_left', 'epoch', 'pause'],
    text: sh`# fresh_window: wait until the window of the last answer has ended (a minute at most)
fresh_window() {
  w=$(window_left)
  [ -n "$w" ] && [ "$w" -le 60 ] || w=60
  d=$(epoch "$(header date)")
  [ -z "$d" ] || window_end=$((d + w))
  printf '  got %s: waiting %s s of the target clock for a fresh window\n' "$status" "$((w + 1))"
  pause $((w + 1))
}`,
  },
  rolled_over: {
    uses: ['epoch'],
    text: sh`# rolled_over: true when the last answer came once the minute of the fresh window had ended
rolled_over() { d=$(epoch "$(header date)"); [ -n "$window_end" ] && [ -n "$d" ] && [ "$d" -ge $((window_end + 60)) ]; }`,
  },
  in_window: {
    uses: ['rolled_over'],
    text: sh`# in_window: false (and cannot tell) when an accepted answer came once the fresh window's minute had ended
in_window() {
  case "$status" in 2*) ;; *) return 0 ;; esac
  rolled_over || return 0
  unsure "$status" 'the minute the sequence began in had ended: run it again'
  return 1
}`,
  },
  send: {
    uses: [],
    text: sh`# send TIMES METHOD PATH AS [BODY]: TIMES requests at once on one connection; $accepted of them 2xx, $refused the
# number of the first that was not (empty: none)
send() {
  t=$1 m=$2 sp=$3 u=$(quoted "$PETLOAD_TARGET$3")
  shift 3
  { i=0; while [ "$i" -lt "$t" ]; do i=$((i + 1)); printf 'url = "%s"\noutput = "/dev/null"\n' "$u"; done
    config "$m" "$@"; } | curl -sS -m 120 -K - -w '%{http_code}\n' >"$tmp/codes" || cannot_run "no answer from $PETLOAD_TARGET"
  key_taken "$1" "$(tr '\n' ' ' <"$tmp/codes")"
  off_base "$sp" "$(tr '\n' ' ' <"$tmp/codes")"
  accepted=$(grep -c '^2' "$tmp/codes")
  refused=$(awk '!/^2/ { print NR; exit }' "$tmp/codes")
}
steps() { printf 'steps %d-%d: %s — expect %s\n' "$((n + 1))" "$((n + $1))" "$2" "$3"; n=$((n + $1)); }
# sent holds|expected: the answers of a send; with holds, a refusal among them means the limit is kept
sent() {
  if [ -z "$refused" ]; then printf '  got %s accepted\n' "$accepted"; return; fi
  printf '  got %s accepted, the first refusal at request %s of them\n' "$accepted" "$refused"
  [ "$1" = holds ] || return 0
  printf 'not reproduced: the key was refused within its limit: no more than the limit was accepted\n'
  exit 0
}`,
  },
  wait_retry_after: {
    uses: ['window_left', 'epoch', 'pause'],
    text: sh`# wait_retry_after [both]: wait what the last answer asks (Retry-After, else Reset less Date; with both, until
# both have passed), and half a second more; a minute, the interface's window, when it says nothing. A wait of more
# than two minutes (a day's quota spent, a ban, Retry-After in milliseconds) is not made: cannot tell, exit 2
wait_retry_after() {
  d=$(epoch "$(header date)") r=$(window_left both) a=$(header retry-after)
  reset_at='' promised_at=''
  [ -z "$d" ] || [ -z "$r" ] || reset_at=$((d + r))
  case "$d:$a" in [0-9]*:[0-9]*) promised_at=$((d + a)) ;; esac
  w=$(window_left "$@")
  if [ -n "$w" ] && [ "$w" -gt 120 ]; then
    unsure "$status" "it asks to wait $w s, more than the two minutes a replay waits (a day's quota spent, a ban?)"
    printf 'could not tell: %s\n' "$unsure"
    exit 2
  fi
  if [ -n "$w" ]; then printf '  waiting %s.5 s of the target clock, as the answer asks\n' "$w"
  else w=60; printf '  waiting %s.5 s of the target clock: the answer gives no Retry-After nor Reset\n' "$w"; fi
  pause "$w.5"
}`,
  },
  before_reset: {
    uses: ['epoch'],
    text: sh`# before_reset: false (and cannot tell) when the 429 waited on promised an end before its Reset and the accepted
# answer after the wait came at or after that Reset: the wait overshot (a busy machine), the promise is not tested
before_reset() {
  case "$status" in 2*) ;; *) return 0 ;; esac
  d=$(epoch "$(header date)")
  [ -n "$\{reset_at:-}" ] && [ -n "$\{promised_at:-}" ] && [ -n "$d" ] || return 0
  [ "$promised_at" -lt $((reset_at - 1)) ] && [ "$d" -ge "$reset_at" ] || return 0
  unsure "$status" 'it came once the refused window had ended: the wait overshot, run it again'
  return 1
}`,
  },
  created: {
    uses: [],
    text: sh`# created: the id of the Pet the last answer holds, in $created (a step that cannot go on without it: cannot tell)
created() {
  created=$(tr -d '\r\n' <"$tmp/b" | sed -n 's/.*"id"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p')
  case "$status:$created" in 2*:[0-9]*) printf '  got %s: Pet %s\n' "$status" "$created" ;;
    *) unsure "$status" 'no Pet created to look at'; printf 'could not tell: %s\n' "$unsure"; exit 2 ;; esac
}`,
  },
  note_remaining: {
    uses: [],
    text: sh`note_remaining() { remembered=$(header x-ratelimit-remaining); printf '  got %s: Remaining %s\n' "$status" "$remembered"; }`,
  },
  count: {
    uses: [],
    text: sh`# count REGEX: how many times REGEX matches the last answer's body
count() { awk -v re="$1" '{ n += gsub(re, "") } END { print n + 0 }' "$tmp/b"; }
# shape: what of a Pet (or a list of them) the body lacks, in $bad; its items in $items
shape() {
  bad='' items=$(count '"id"[ ]*:')
  [ "$(count '"id"[ ]*:[ ]*-?[0-9]')" = "$items" ] || bad="$bad; an id is not a number"
  [ "$(count '"name"[ ]*:[ ]*"')" = "$items" ] || bad="$bad; a name is not a string"
  [ "$(count '"categoryId"[ ]*:[ ]*-?[0-9]')" = "$items" ] || bad="$bad; a categoryId is not a number"
  [ "$(count '"status"[ ]*:[ ]*"(available|pending|sold)"')" = "$(count '"status"[ ]*:')" ] ||
    bad="$bad; a status is none of available, pending, sold"
}
first_char() { tr -d ' \t\r\n' <"$tmp/b" | cut -c1; }`,
  },
  ...expectations(),
} as const satisfies Record<string, ShFunction>;

/** One function per kind of expectation: `expect_<kind>` (dashes made underscores). */
function expectations() {
  return {
    expect_status: {
      uses: [],
      text: sh`expect_status() { for c in "$@"; do [ "$status" != "$c" ] || { ok "$status"; return; }; done; defect "$status"; }`,
    },
    expect_not_status: {
      uses: [],
      text: sh`expect_not_status() { for c in "$@"; do [ "$status" != "$c" ] || { defect "$status"; return; }; done; ok "$status"; }`,
    },
    expect_below_500: {
      uses: [],
      text: sh`expect_below_500() { if [ "$status" -lt 500 ]; then ok "$status"; else defect "$status"; fi; }`,
    },
    expect_headers: {
      uses: [],
      text: sh`# expect_headers NAME...: every one of them in the answer
expect_headers() {
  miss=''
  for h in "$@"; do [ -n "$(header "$h")" ] || miss="$miss $h"; done
  if [ -z "$miss" ]; then ok "$status with$(printf ' %s' "$@")"; else defect "$status without$miss"; fi
}`,
    },
    expect_reset_seconds: {
      uses: ['epoch'],
      text: sh`# expect_reset_seconds: X-RateLimit-Reset is a Unix time in seconds, from Date to a day after it
expect_reset_seconds() {
  r=$(header x-ratelimit-reset) d=$(epoch "$(header date)")
  [ -n "$r" ] && [ -n "$d" ] || { unsure "$status" 'no X-RateLimit-Reset or no Date'; return; }
  if awk -v r="$r" -v d="$d" 'BEGIN { exit !(r ~ /^[0-9]+$/ && r + 1 >= d && r <= d + 86401) }'
  then ok "Reset $r with Date $d"; else defect "Reset $r with Date $d"; fi
}`,
    },
    expect_remaining_below_limit: {
      uses: [],
      text: sh`# expect_remaining_below_limit: an accepted answer counts its own request: Remaining below Limit
expect_remaining_below_limit() {
  l=$(header x-ratelimit-limit) r=$(header x-ratelimit-remaining)
  case "$status:$l:$r" in 2*:[0-9]*:[0-9]*) ;; *) unsure "$status" 'not an accepted answer with Limit and Remaining'; return ;; esac
  if [ "$r" -lt "$l" ]; then ok "Remaining $r of Limit $l"; else defect "Remaining $r of Limit $l"; fi
}`,
    },
    expect_limit_of_plan: {
      uses: ['window_left'],
      text: sh`# expect_limit_of_plan PER_MINUTE PER_DAY: Limit is the plan's figure of the window the answer reports
expect_limit_of_plan() {
  l=$(header x-ratelimit-limit) w=$(window_left)
  if [ "$l" = "$1" ] || { [ "$l" = "$2" ] && [ "$\{w:-0}" -gt 60 ]; }; then ok "Limit $l"
  else defect "Limit $l on a window of $\{w:-?} s"; fi
}`,
    },
    expect_retry_after: {
      uses: [],
      text: sh`expect_retry_after() {
  [ "$status" = 429 ] || { unsure "$status" 'no 429 to look at'; return; }
  a=$(header retry-after)
  if [ -n "$a" ]; then ok "429 with Retry-After: $a"; else defect '429 without Retry-After'; fi
}`,
    },
    expect_retry_after_within_reset: {
      uses: ['epoch'],
      text: sh`# expect_retry_after_within_reset: Retry-After asks for no more than Reset less Date (1 s more)
expect_retry_after_within_reset() {
  [ "$status" = 429 ] || { unsure "$status" 'no 429 to look at'; return; }
  a=$(header retry-after) r=$(header x-ratelimit-reset) d=$(epoch "$(header date)")
  w=$(awk -v r="$r" -v d="$d" 'BEGIN { if (r ~ /^[0-9]+$/ && d != "") print r - d }')
  case "$a:$w" in [0-9]*:[0-9]*) ;; *) unsure "$status" "Retry-After '$a', Reset '$r'"; return ;; esac
  if [ "$a" -le $((w + 1)) ]; then ok "Retry-After $a, $w s until Reset"; else defect "Retry-After $a with $w s until Reset"; fi
}`,
    },
    expect_error_body: {
      uses: [],
      text: sh`# expect_error_body: a JSON body with code, message, and status equal to the HTTP status
expect_error_body() {
  miss=''
  grep -q '"code"[[:space:]]*:[[:space:]]*"[^"]' "$tmp/b" || miss="$miss code"
  grep -q '"message"[[:space:]]*:[[:space:]]*"[^"]' "$tmp/b" || miss="$miss message"
  grep -Eq '"status"[[:space:]]*:[[:space:]]*'"$status"'([^0-9]|$)' "$tmp/b" || miss="$miss status=$status"
  if [ -z "$miss" ]; then ok "$status with an Error body"; else defect "$status, a body without$miss: $(sed -n 1p "$tmp/b" | cut -c1-100)"; fi
}`,
    },
    expect_pet: {
      uses: ['count'],
      text: sh`# expect_pet: an accepted answer whose body is a Pet (id, name, categoryId; a status of the three if any)
expect_pet() {
  case "$status" in 2*) ;; *) unsure "$status" 'not an accepted answer'; return ;; esac
  shape
  [ "$(first_char)" = '{' ] && [ "$items" = 1 ] || bad="$bad; not one object with an id"
  if [ -z "$bad" ]; then ok "$status with a Pet"; else defect "$status:$\{bad#;}: $(sed -n 1p "$tmp/b" | cut -c1-100)"; fi
}`,
    },
    expect_pets: {
      uses: ['count'],
      text: sh`# expect_pets MAX STATUS: a bare array of Pet, at most MAX of them, each of that STATUS (either may be '')
expect_pets() {
  case "$status" in 2*) ;; *) unsure "$status" 'not an accepted answer'; return ;; esac
  shape
  [ "$(first_char)" = '[' ] || bad="$bad; not a bare JSON array"
  [ -z "$1" ] || [ "$items" -le "$1" ] || bad="$bad; $items animals for limit=$1"
  [ -z "$2" ] || [ "$(count '"status"[ ]*:[ ]*"'"$2"'"')" = "$items" ] || bad="$bad; not every animal has status $2"
  if [ -z "$bad" ]; then ok "$status with $items animals"; else defect "$status:$\{bad#;}: $(sed -n 1p "$tmp/b" | cut -c1-100)"; fi
}`,
    },
    expect_refused: {
      uses: [],
      text: sh`expect_refused() { if [ "$status" = 429 ]; then ok 429; else unsure "$status" 'no 429 to go on from'; fi; }`,
    },
    expect_minute_kept: {
      uses: ['epoch'],
      text: sh`# expect_minute_kept: an answer accepted a minute or more after the fresh window began, never sooner
expect_minute_kept() {
  case "$status" in 2*) ;; *) ok "$status"; return ;; esac
  d=$(epoch "$(header date)")
  [ -n "$d" ] && [ -n "$window_end" ] || { unsure "$status" 'no Date to time the window by'; return; }
  if [ "$d" -ge $((window_end + 60)) ]; then ok "$status, $((d - window_end)) s after the window began"
  else defect "$status, $((d - window_end)) s after the window began: it restarted before a minute"; fi
}`,
    },
    expect_remaining_kept: {
      uses: [],
      text: sh`# expect_remaining_kept: Remaining fell by no more than this key's own request since it was noted
expect_remaining_kept() {
  r=$(header x-ratelimit-remaining)
  case "$r:$remembered" in [0-9]*:[0-9]*) ;; *) unsure "$status" 'no Remaining to compare'; return ;; esac
  if [ "$r" -ge $((remembered - 1)) ]; then ok "Remaining $r (was $remembered)"; else defect "Remaining $r (was $remembered)"; fi
}`,
    },
  } satisfies Record<`expect_${string}`, ShFunction>;
}

export type ShName = keyof typeof FUNCTIONS;

/** The function that checks an expectation of that kind. */
export const expectFunction = (kind: ExpectationKind): ShName => `expect_${kind.replaceAll('-', '_')}` as ShName;

/** The text of the functions named and of those they use, each once, in the order of FUNCTIONS. */
export function functionsText(names: Iterable<ShName>): string {
  const want = new Set<ShName>();
  const add = (name: ShName): void => {
    if (want.has(name)) return;
    want.add(name);
    for (const u of FUNCTIONS[name].uses) add(u as ShName);
  };
  for (const name of names) add(name);
  return (Object.keys(FUNCTIONS) as ShName[])
    .filter((name) => want.has(name))
    .map((name) => FUNCTIONS[name].text)
    .join('\n');
}
