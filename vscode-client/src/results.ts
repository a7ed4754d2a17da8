/**
 * What the results panel shows for one answer, computed without the editor: results grouped by file,
 * a badge per modality saying how much it contributed, boost/demotion flags, the header line and the
 * empty state that says why nothing was found. Kept pure so it is unit-tested in plain Node.
 */
import { MODALITIES, type Modality, type Range, type SearchAnswer, type SearchResult } from './protocol';

export interface FileGroup {
  uri: string;
  path: string;
  language: string | null;
  hits: SearchResult[];
}

export interface Badge {
  modality: Modality;
  share: number;
  label: string;
  title: string;
}

export interface Flag {
  kind: 'boost' | 'demoted' | 'approximate' | 'unresolved';
  label: string;
  title: string;
}

export interface ModalitySummary {
  modality: Modality;
  ran: boolean;
  hits: number;
  label: string;
}

export interface Header {
  query: string;
  intent: string;
  confidence: string;
  strategy: string;
  strategyTitle: string;
  preset: string;
  time: string;
  counts: string;
  modalities: ModalitySummary[];
  notes: string[];
  /** The answer's "no definition of X; similar names: …" line, shown first; also left out of `notes`. */
  notFound: string | null;
}

export interface EmptyState {
  title: string;
  hints: string[];
}

// A boost this close to 1 is rounding noise, not a hub.
const BOOST_EPSILON = 0.005;

const STRATEGY_TITLES: Record<string, string> = {
  direct: 'The query was classified with high confidence, so only its best retriever ran.',
  rrf: 'Several retrievers ran; their rankings were fused with weighted Reciprocal Rank Fusion.',
  rescued: 'The confident direct route found nothing, so every retriever of the preset ran and was fused.',
  decomposed: 'A long text (an issue, a traceback) was split into parts, each searched alone, and their files fused.',
};

/** Results in server order, grouped by file: the first (best) hit of a file decides the group's place. */
export function groupByFile(results: readonly SearchResult[]): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  for (const result of results) {
    let group = groups.get(result.uri);
    if (!group) {
      group = { uri: result.uri, path: result.path, language: result.language, hits: [] };
      groups.set(result.uri, group);
    }
    group.hits.push(result);
  }
  return [...groups.values()];
}

/** One badge per modality that contributed, largest share first, so the reason for a rank is visible. */
export function badges(result: SearchResult): Badge[] {
  const parts = MODALITIES.map((modality) => ({ modality, value: result.contributions[modality] ?? 0 }))
    .filter((part) => part.value > 0);
  const total = parts.reduce((sum, part) => sum + part.value, 0);
  return parts
    .map(({ modality, value }) => {
      const share = value / total;
      const percent = Math.round(share * 100);
      const rank = result.ranks[modality];
      const where = rank === undefined ? '' : `ranked #${rank + 1}, `;
      return {
        modality,
        share,
        label: `${modality} ${percent}%`,
        title: `${modality}: ${where}${percent}% of this result's score (${value.toFixed(4)})`,
      };
    })
    .sort((a, b) => b.share - a.share);
}

/** Flags a user may wonder about: a guess for a missing name, a name-only caller, graph centrality, vendor demotion. */
export function flags(result: SearchResult): Flag[] {
  const found: Flag[] = [];
  if (result.approximate) {
    found.push({
      kind: 'approximate',
      label: 'approximate',
      title: 'The name asked for does not exist here: this is a similar name, not an answer.',
    });
  }
  if (result.resolved === false) {
    found.push({
      kind: 'unresolved',
      label: 'name only',
      title: 'This call matches the name only: imports, receiver type or module do not resolve it to the target.',
    });
  }
  if (result.boost > 1 + BOOST_EPSILON) {
    found.push({
      kind: 'boost',
      label: `hub ×${result.boost.toFixed(2)}`,
      title: 'Central in the call/import graph: its score was multiplied by this boost (capped at ×1.5).',
    });
  }
  if (result.demoted) {
    found.push({
      kind: 'demoted',
      label: 'demoted',
      title: 'Under a vendor, build or archive path (or minified/generated): its score was multiplied by fourfold.demoteFactor.',
    });
  }
  return found;
}

/**
 * How an impact (or callers) result depends on the question's target: the chain of names the graph
 * followed from the result to the target (`via`), e.g. "via InventoryService.__init__ → load_settings".
 * Null when the answer has no path for it (a definition, a text hit).
 */
export function impactPath(result: SearchResult): string | null {
  return result.via.length > 0 ? `via ${result.via.join(' → ')}` : null;
}

/** A call site or use of the target in a result's file, with its code line when the server sent it. */
export interface Site {
  range: Range;
  code: string;
}

/** The result's other sites, one per line, in line order, leaving out the line the result starts on. */
export function sites(result: SearchResult): Site[] {
  const own = result.range.start.line;
  const seen = new Map<number, Site>();
  result.matches.forEach((range, index) => {
    const line = range.start.line;
    if (line !== own && !seen.has(line)) {
      seen.set(line, { range, code: result.match_lines?.[index] ?? '' });
    }
  });
  return [...seen.values()].sort((a, b) => a.range.start.line - b.range.start.line);
}

/** How many sites a file shows before the rest fold under "+N more". */
export const SITES_SHOWN = 5;

/**
 * The other sites of a file's results (per result, in order), split into those shown and those folded:
 * `shown` lines a file, counting each result's own line (always shown), as the CLI does.
 */
export function foldSites(group: FileGroup, shown = SITES_SHOWN): { shown: Site[][]; folded: Site[][] } {
  let budget = shown;
  const visible: Site[][] = [];
  const folded: Site[][] = [];
  for (const hit of group.hits) {
    budget -= 1;
    const all = sites(hit);
    const take = Math.max(0, Math.min(budget, all.length));
    budget -= take;
    visible.push(all.slice(0, take));
    folded.push(all.slice(take));
  }
  return { shown: visible, folded };
}

/** Every site of a file: each result's own line and its other matches. */
export function siteCount(group: FileGroup): number {
  return group.hits.reduce((count, hit) => count + 1 + sites(hit).length, 0);
}

// The engine's notes that say the target does not exist (fourfold.engine.absence): the answer is a guess.
const ABSENCE = /^no (definition of|symbol named|exact match for) |occurs nowhere in this workspace/;

/** The "no definition of X; similar names: …" line of an answer whose target does not exist, or null. */
export function notFound(answer: SearchAnswer): string | null {
  const notes = answer.notes ?? [];
  return notes.find((note) => ABSENCE.test(note))
    ?? (answer.results.some((result) => result.approximate) && notes.length > 0 ? notes[0] : null);
}

/** 1-based line for display (LSP lines are 0-based). */
export function displayLine(range: Range): number {
  return range.start.line + 1;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) {
    return '';
  }
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The header: query, intent with confidence, fusion strategy, preset, total time, per-modality work. */
export function header(answer: SearchAnswer): Header {
  const files = groupByFile(answer.results).length;
  const missing = notFound(answer);
  return {
    query: answer.query,
    intent: answer.intent,
    confidence: `${Math.round(answer.confidence * 100)}%`,
    strategy: answer.fusion_strategy,
    strategyTitle: STRATEGY_TITLES[answer.fusion_strategy] ?? answer.fusion_strategy,
    preset: answer.preset,
    time: formatMs(answer.timings_ms.total),
    counts: `${plural(answer.results.length, 'result')} in ${plural(files, 'file')}`,
    modalities: MODALITIES.flatMap((modality) => {
      const report = answer.modalities[modality];
      if (!report || (!report.ran && report.weight === 0)) {
        return [];
      }
      const label = report.ran ? `${modality}: ${plural(report.hits, 'hit')}, ${formatMs(report.ms)}` : `${modality}: not run`;
      return [{ modality, ran: report.ran, hits: report.hits, label }];
    }),
    notFound: missing,
    notes: [...(answer.notes ?? []).filter((note) => note !== missing), ...(answer.partial ? ['The index is still being built: more results may appear.'] : [])],
  };
}

/** Why an answer is empty and what to try next; `backend` is the index's semantic backend if known. */
export function emptyState(answer: SearchAnswer, backend: string | null): EmptyState {
  const hints: string[] = [];
  let title = `No results for “${answer.query}”.`;
  if (answer.index && !answer.index.ready) {
    title = `No results yet: the index is still being built (${answer.index.files} files so far).`;
    hints.push('Search again when the status bar shows the file count instead of a percentage.');
  }
  if (backend === 'none' && ['understand_code', 'find_similar'].includes(answer.intent)) {
    hints.push('Semantic search is off (fourfold.semantic.backend is "none"), so a question in plain words only matches text and symbols. Set the backend to "local" to search by meaning.');
  }
  hints.push('Try an identifier (parseConfig), a quoted string ("connection refused") or a shorter question.');
  if (answer.preset !== 'thorough') {
    hints.push('The "thorough" preset (fourfold.preset) also searches the call graph.');
  }
  return { title, hints };
}
