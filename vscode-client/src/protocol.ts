/**
 * The shapes the Fourfold server sends (DESIGN §7), typed once so the panel, the status bar and the
 * commands read the same fields. Pure: no `vscode` import, so unit tests run in plain Node.
 */

export const MODALITIES = ['semantic', 'text', 'structural', 'graph'] as const;
export type Modality = (typeof MODALITIES)[number];

/** Server command ids; the language client registers these itself, so UI commands use `fourfold.ui.*`. */
export const SERVER_COMMANDS = {
  search: 'fourfold.search',
  indexStatus: 'fourfold.indexStatus',
  reindex: 'fourfold.reindex',
} as const;

/** Custom notification sent whenever a folder's index changes state. */
export const STATUS_NOTIFICATION = 'fourfold/indexStatus';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface SearchResult {
  uri: string;
  path: string;
  range: Range;
  symbol: string | null;
  kind: string | null;
  container: string | null;
  language: string | null;
  snippet: string;
  score: number;
  contributions: Partial<Record<Modality, number>>;
  ranks: Partial<Record<Modality, number>>;
  boost: number;
  demoted: boolean;
  matches: Range[];
  folder?: string;
}

export interface ModalityReport {
  weight: number;
  ran: boolean;
  hits: number;
  ms: number;
}

export interface SearchAnswer {
  query: string;
  intent: string;
  confidence: number;
  fusion_strategy: string;
  preset: string;
  k?: number;
  modalities: Partial<Record<Modality, ModalityReport>>;
  results: SearchResult[];
  timings_ms: Record<string, number>;
  notes?: string[];
  index?: { ready: boolean; state: string; files: number };
  partial?: boolean;
}

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
