/**
 * What every HTML page of petload is made of (report.html, compare.html, trend.html, the live page): the
 * Content-Security-Policy that allows no request, uPlot read from node_modules to be inlined, and the escaping of
 * text put inside a <script> element.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** No request of any kind; inline styles and scripts, data: images. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

let uplot: { js: string; css: string } | undefined;

/** uPlot's script and stylesheet, read once. */
export function uplotAssets(): { js: string; css: string } {
  if (uplot) return uplot;
  const require = createRequire(import.meta.url);
  uplot = {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
  return uplot;
}

/** Script text inside <script>: a `</script` or `<!--` in it would end or confuse the element. */
export function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/**
 * JSON inside <script type="application/json">: with `<` escaped, no text can close the element; DEL, the C1
 * controls and the two Unicode line separators are escaped too, so that none stands raw in the page.
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<\x7f-\x9f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
