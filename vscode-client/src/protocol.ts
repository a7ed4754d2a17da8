/**
 * The shapes the Fourfold server sends (DESIGN §7), typed once so the panel, the status bar and the
 * commands read the same fields. Pure: no `vscode` import, so unit tests run in plain Node.
 *
 * The answer of `fourfold.search` is generated from the engine's records (./answer.ts, written by
 * `python -m fourfold.lsp.typescript`); a test fails when the two disagree.
 */

export {
  MODALITIES,
  type DecompositionPart,
  type IndexState,
  type Modality,
  type ModalityReport,
  type Position,
  type Range,
  type SearchAnswer,
  type SearchResult,
  type Seed,
} from './answer';

/** Server command ids; the language client registers these itself, so UI commands use `fourfold.ui.*`. */
export const SERVER_COMMANDS = {
  search: 'fourfold.search',
  indexStatus: 'fourfold.indexStatus',
  reindex: 'fourfold.reindex',
} as const;

/** Custom notification sent whenever a folder's index changes state. */
export const STATUS_NOTIFICATION = 'fourfold/indexStatus';

export interface IndexStatus {
  ready: boolean;
  /** "indexing", "ready" or "error". */
  state: string;
  files: number;
  symbols: number;
  chunks: number;
  embedded: number;
  backend: string | null;
  progress: number;
  last_error: string | null;
  phase?: string;
  name?: string;
}

/** Arguments of `fourfold.search`: the palette sends a query, the cursor commands also pin an intent. */
export interface SearchRequest {
  query: string;
  limit?: number;
  preset?: string;
  intent?: string;
}
