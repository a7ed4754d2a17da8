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
  /** The file's other matching ranges (call sites, uses), each with its code line in `match_lines`. */
  matches: Range[];
  /** The code line of each of `matches`, same order (absent from answers of older servers). */
  match_lines?: string[];
  /** Whether the result's file defines a name the question states. */
  defines: boolean;
  prior: number;
  coherence: number;
  /** A fuzzy suggestion for a target that does not exist ("no definition of X; similar names: …"). */
  approximate: boolean;
  /** How the result depends on the target (impact: the import or call path). */
  via: string[];
  /** For callers: true when imports, receiver or qualification resolve the call, false for a name-only match. */
  resolved?: boolean;
  folder?: string;
  /** Where an editor puts the cursor: a definition's name, a text hit's words (added by the language server). */
  selection?: Range;
}

/** One part of a long text (an issue, a traceback) searched on its own (`fusion_strategy: "decomposed"`). */
export interface DecompositionPart {
  query: string;
  /** Where in the text the part came from: prose, body, file, module, identifier, error, quote. */
  source: string;
  intent: string;
  weight: number;
  hits: number;
  strategy: string;
  /** The part's first files. */
  top: string[];
}

/** What a find_similar answer is similar to. */
export interface Seed {
  path: string;
  range: Range;
  symbol: string | null;
  kind: string | null;
  how: string;
}

export interface ModalityReport {
  weight: number;
  ran: boolean;
  hits: number;
  ms: number;
  /** Why the modality was left out of this answer (a crash, its time budget). */
  error?: string;
}

export interface SearchAnswer {
  query: string;
  intent: string;
  confidence: number;
  /** The routing rule that decided the intent (DESIGN §2). */
  rule: string;
  /** The name the question is about, if any. */
  target: string | null;
  fusion_strategy: string;
  preset: string;
  k?: number;
  modalities: Partial<Record<Modality, ModalityReport>>;
  results: SearchResult[];
  timings_ms: Record<string, number>;
  notes?: string[];
  seed?: Seed | null;
  decomposition?: DecompositionPart[];
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
