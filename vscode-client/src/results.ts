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
  kind: 'boost' | 'demoted';
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

/** Flags for the two score adjustments a user may wonder about: graph centrality and vendor demotion. */
export function flags(result: SearchResult): Flag[] {
  const found: Flag[] = [];
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

/** The file's other matching ranges: those not on the line the result itself starts on. */
export function otherMatches(result: SearchResult): Range[] {
  const line = result.range.start.line;
  return result.matches.filter((match) => match.start.line !== line);
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
    notes: [...(answer.notes ?? []), ...(answer.partial ? ['The index is still being built: more results may appear.'] : [])],
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
