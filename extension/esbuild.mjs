// Bundles the extension (and, with --tests, the host test suite) into CommonJS for VS Code.
// shared/ (the API client and zod schemas) and zod are bundled in; only `vscode` stays external.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const withTests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  absWorkingDir: here,
};

await esbuild.build({
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  external: ['vscode'],
});

// The Statistics webview's page: a browser bundle with the chart library, loaded from the
// extension's own files (the webview's content security policy allows nothing else).
await esbuild.build({
  ...common,
  platform: 'browser',
  format: 'iife',
  target: 'chrome120',
  entryPoints: ['src/statistics/webview/statistics-page.ts'],
  outfile: 'dist/statistics.js',
});

if (withTests) {
  const suite = path.join(here, 'test', 'suite');
  await esbuild.build({
    ...common,
    entryPoints: readdirSync(suite)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `test/suite/${f}`),
    outdir: 'dist/test/suite',
    // mocha is loaded from node_modules by the host; the extension is reached through vscode.extensions
    external: ['vscode', 'mocha'],
  });
}
console.log(
  `built ${path.relative(process.cwd(), path.join(here, 'dist'))}${withTests ? ' (with tests)' : ''}`,
);
