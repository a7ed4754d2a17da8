// Real `fourfold search --json` answers (backend none) recorded from tests/fixtures/polyglot, and `callers`
// ("who calls tick") from a repo of 15 call sites in two files (busy.py 12, calm.py 3; tests/lsp/test_cli.py).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SearchAnswer } from '../src/protocol';

export function answer(name: 'definition' | 'fused' | 'absent' | 'callers'): SearchAnswer {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'test', 'fixtures', `${name}.json`), 'utf8')) as SearchAnswer;
}
