// Bundles the extension (dist/extension.js, with vscode-languageclient inside) or, with --tests,
// each unit test (out/test/*.test.js) so `node --test` runs them without an editor.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

const common = { bundle: true, platform: 'node', target: 'node18', format: 'cjs', sourcemap: true, logLevel: 'warning' };

const options = tests
  ? {
      ...common,
      entryPoints: fs.readdirSync('test').filter((name) => name.endsWith('.test.ts')).map((name) => path.join('test', name)),
      outdir: 'out/test',
      // The pure modules under test never import vscode; fail loudly if one starts to.
      external: [],
    }
  : {
      ...common,
      entryPoints: ['src/extension.ts'],
      outfile: 'dist/extension.js',
      external: ['vscode'],
      minify: !watch,
    };

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
