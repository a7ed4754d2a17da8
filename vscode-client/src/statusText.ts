/**
 * The status bar item's text and tooltip for each state of the server and its index: starting,
 * indexing with a percentage, ready with file and symbol counts, failed. Pure, unit-tested.
 */
import type { IndexStatus } from './protocol';

export type ServerState =
  | { kind: 'starting' }
  | { kind: 'progress'; percent: number; message: string }
  | { kind: 'status'; status: IndexStatus }
  | { kind: 'stopped'; problem: string };

export interface StatusView {
  text: string;
  tooltip: string;
  error: boolean;
}

const CLICK = 'Click for the index status.';

function count(value: number, word: string): string {
  return `${value.toLocaleString('en-US')} ${word}${value === 1 ? '' : 's'}`;
}

/** What the status bar shows for `state`. */
export function statusView(state: ServerState): StatusView {
  switch (state.kind) {
    case 'starting':
      return { text: '$(sync~spin) Fourfold', tooltip: 'Fourfold: starting the language server…', error: false };
    case 'progress':
      return {
        text: `$(sync~spin) Fourfold ${Math.round(state.percent)}%`,
        tooltip: `Fourfold: ${state.message || 'indexing'}. Search works meanwhile, with partial results. ${CLICK}`,
        error: false,
      };
    case 'stopped':
      return { text: '$(circle-slash) Fourfold', tooltip: `Fourfold is not running: ${state.problem}`, error: true };
    case 'status':
      return fromStatus(state.status);
  }
}

function fromStatus(status: IndexStatus): StatusView {
  if (status.state === 'error') {
    return { text: '$(error) Fourfold', tooltip: `Fourfold: indexing failed: ${status.last_error ?? 'unknown error'}. ${CLICK}`, error: true };
  }
  if (!status.ready) {
    const percent = Math.round((status.progress ?? 0) * 100);
    return { text: `$(sync~spin) Fourfold ${percent}%`, tooltip: `Fourfold: indexing (${count(status.files, 'file')} so far). ${CLICK}`, error: false };
  }
  const semantic = status.backend && status.backend !== 'none'
    ? `${count(status.embedded, 'chunk')} of ${status.chunks.toLocaleString('en-US')} embedded (${status.backend})`
    : 'semantic search off';
  return {
    text: `$(search) Fourfold ${count(status.files, 'file')} · ${count(status.symbols, 'symbol')}`,
    tooltip: `Fourfold index ready: ${count(status.files, 'file')}, ${count(status.symbols, 'symbol')}, ${semantic}. ${CLICK}`,
    error: false,
  };
}

/** Percentage (0–100) of a `$/progress` begin/report value, or undefined when it carries none. */
export function progressPercent(value: { percentage?: number }): number | undefined {
  return typeof value.percentage === 'number' ? Math.max(0, Math.min(100, value.percentage)) : undefined;
}
