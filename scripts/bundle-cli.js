// The CLI's bundle (scripts/build.js says why there is one): petload's code from `entry` in a few files in `outdir`,
// with the packages named in BUNDLED and what they import; every other dependency stays an import of node_modules.
// `npm run build` bundles the compiled dist/cli/main.js into dist/bundle/; the tests' global set-up
// (src/testing/global-setup.ts) bundles the TypeScript sources (src/cli/main.ts) the same way, so that each CLI run
// of a test starts as a user's does, from the code as it is, without a build or a TypeScript loader.
//
// `outdir` must sit two folders below the checkout, as every compiled module does, so that the paths the code finds
// from its own place (`../../scenarios/`, `../../package.json`, and uPlot through node_modules) hold in it too; the
// report page's assets are copied next to it as next to src/outputs/.
import { copyFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const at = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));
/** The report page's assets, which the code reads next to itself. */
export const ASSETS = ['outputs/report-page.css', 'outputs/report-page.js'];
/** The dependencies bundled with the CLI: the ones every command that sends nothing loads. */
const BUNDLED = new Set(['zod', 'yargs', 'yaml', 'hdr-histogram-js']);
const dependencies = Object.keys(JSON.parse(readFileSync(at('package.json'), 'utf8')).dependencies);

/** The package a bare import names (`yargs/helpers` -> `yargs`, `@scope/x/y` -> `@scope/x`). */
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Bundles the CLI from `entry` (a path) into `outdir` (a path two folders below the checkout), assets included. */
export async function bundleCli(entry, outdir) {
  await build({
    entryPoints: { petload: entry },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    minifyWhitespace: true,
    minifySyntax: true,
    // CommonJS code in a bundled package (hdr-histogram-js) calls require() for node's own modules (zlib).
    banner: {
      js: "import { createRequire as petloadRequire } from 'node:module';\nconst require = petloadRequire(import.meta.url);",
    },
    plugins: [
      {
        // yaml's ES module build (the one its exports map gives to every platform but node), so that the bundle
        // leaves out what petload never calls: node's is CommonJS, which a bundle keeps whole.
        name: 'yaml-as-es-module',
        setup: (b) => b.onResolve({ filter: /^yaml$/ }, () => ({ path: at('node_modules/yaml/browser/index.js') })),
      },
      {
        // hdr-histogram-js requires pako for browsers; on node it deflates and inflates with node's zlib (its
        // JsHistogram.encoding.js, findDeflateFunction and findInflateFunction), so the bundle leaves pako out: its
        // module set-up cost `petload report` 14 ms of its start. The packaging test writes and reads histograms.
        name: 'pako-left-out',
        setup: (b) => {
          b.onResolve({ filter: /^pako$/ }, (args) =>
            args.importer.includes('hdr-histogram-js') ? { path: 'pako', namespace: 'left-out' } : undefined,
          );
          b.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({ contents: 'module.exports = undefined;' }));
        },
      },
      {
        // yargs measures every cell of its help with string-width (three copies of it: yargs', cliui's and
        // wrap-ansi's), and each copy builds an Intl.Segmenter when it is loaded: ICU's set-up, 16 ms of every
        // command's start on this machine. Each import of string-width gets a front that answers for printable
        // ASCII (one column per character, in every version of it) and loads that copy, on first use, for any
        // other text. The packaging test holds the bundle's help texts to the compiled CLI's.
        name: 'string-width-on-demand',
        setup: (b) => {
          b.onResolve({ filter: /^string-width$/ }, async (args) => {
            if (args.pluginData === 'real') return undefined;
            const real = await b.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              pluginData: 'real',
            });
            if (real.errors.length > 0) return { errors: real.errors };
            return { path: real.path, namespace: 'string-width-front' };
          });
          b.onLoad({ filter: /.*/, namespace: 'string-width-front' }, (args) => ({
            resolveDir: dirname(args.path),
            contents: [
              'let measure;',
              'export default function stringWidth(text, options) {',
              '  if (typeof text === "string" && /^[\\x20-\\x7e]*$/.test(text)) return text.length;',
              `  measure ??= require(${JSON.stringify(args.path)}).default;`,
              '  return measure(text, options);',
              '}',
            ].join('\n'),
          }));
        },
      },
      {
        // petload's own imports of a dependency not in BUNDLED stay imports; a bundled package's own imports are
        // bundled with it.
        name: 'dependencies-stay-external',
        setup: (b) =>
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            const own = !args.importer.includes(join('node_modules', ''));
            const name = packageOf(args.path);
            return own && dependencies.includes(name) && !BUNDLED.has(name)
              ? { path: args.path, external: true }
              : undefined;
          }),
      },
    ],
  });
  for (const a of ASSETS) copyFileSync(at(`src/${a}`), join(outdir, a.split('/').at(-1)));
}
