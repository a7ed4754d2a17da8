// Real `fourfold search --json` answers recorded from tests/fixtures/polyglot (backend none).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SearchAnswer } from '../src/protocol';

export function answer(name: 'definition' | 'fused'): SearchAnswer {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'test', 'fixtures', `${name}.json`), 'utf8')) as SearchAnswer;
}
