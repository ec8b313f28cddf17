// Standard VS Code extension test entry (the @vscode/test-electron contract): the extension host
// calls run() and turns its settling into the exit code. The host's console is not the CI's
// stdout, so the spec output also goes to $EXT_TEST_LOG and a summary to $EXT_TEST_RESULTS.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import Mocha from 'mocha';

interface Result {
  title: string;
  state: 'passed' | 'failed' | 'skipped';
  ms?: number;
  error?: string;
}

export function run(): Promise<void> {
  const log = process.env.EXT_TEST_LOG;
  if (log) {
    fs.writeFileSync(log, '');
    const base = Mocha.reporters.Base as unknown as { consoleLog: (...a: unknown[]) => void };
    const original = base.consoleLog;
    base.consoleLog = (...a: unknown[]) => {
      fs.appendFileSync(log, `${util.format(...a)}\n`);
      original(...a);
    };
  }
  const mocha = new Mocha({ ui: 'bdd', timeout: 30_000, color: false, reporter: 'spec' });
  for (const f of fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort())
    mocha.addFile(path.join(__dirname, f));
  const results: Result[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.EXT_TEST_RESULTS;
      if (out) {
        fs.writeFileSync(
          out,
          JSON.stringify(
            {
              passed: results.filter((r) => r.state === 'passed').length,
              failed: failures,
              skipped: results.filter((r) => r.state === 'skipped').length,
              results,
            },
            null,
            2,
          ),
        );
      }
      if (failures) reject(new Error(`${failures} tests failed.`));
      else resolve();
    });
    runner.on('pass', (t) => results.push({ title: t.fullTitle(), state: 'passed', ms: t.duration ?? 0 }));
    runner.on('pending', (t) => results.push({ title: t.fullTitle(), state: 'skipped' }));
    runner.on('fail', (t, err) =>
      results.push({ title: t.fullTitle(), state: 'failed', error: String(err) }),
    );
  });
}
