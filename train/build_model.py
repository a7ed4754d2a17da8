"""Build Fourfold's code model from one command:

    python train/build_model.py --sources train/sources.txt --seed 0 --out engine/semantic/models/code/

1. fetch the pinned package sources (train/fetch.py) into the corpus folder (default /work/corpora/train);
2. mine pairs from them with Fourfold's own parser (train/pairs.py): doc comment -> definition,
   name words -> body, and sibling implementation -> sibling (three tasks);
3. choose a vocabulary of code tokens (`fourfold.engine.model.tokens`, the tokenizer the index uses);
4. start every token's vector from WordLlama's l2_supercat embedding of the word, scaled by its IDF;
5. fine-tune all vectors with a symmetric in-batch-negatives contrastive loss (InfoNCE) on the
   training packages' pairs of all tasks mixed, measuring recall@1/@10 of every task on the held-out
   packages after every epoch and keeping the epoch with the best mean recall@10;
6. write float16 vectors, the vocabulary, config.json and MODEL_CARD.md into --out.

Needs the `train` extra (torch, CPU build); the shipped model needs numpy only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))

from fetch import fetch, read_sources
from pairs import Pair, mine

from fourfold.engine.model.tokens import code_tokens, split_identifier, stem
from fourfold.engine.semantic.embedding import _wordllama_model, code_bag

# Every task is measured on the held-out packages whatever the model trains on, so that runs on
# different task mixes are chosen by one yardstick.
VALIDATION_TASKS = ("doc", "name", "similar")

# How the model card names each teacher of the start vectors (Hyper.init).
TEACHERS = {
    "wordllama": "WordLlama l2_supercat's embedding",
    "minilm": "the packaged MiniLM's (all-MiniLM-L6-v2 int8) sentence vector, PCA to the model's dimensions,",
}


@dataclass(frozen=True)
class Hyper:
    """Training choices; each is reported in the model card."""

    vocabulary: int = 50_000
    min_document_frequency: int = 3
    dims: int = 256
    # Held-out recall peaks at epoch 1-2 on the three-task pairs (3 epochs: mean recall@10 0.795,
    # 0.795, 0.793) and falls after: the vectors start to memorise rare tokens.
    epochs: int = 2
    batch: int = 1024
    learning_rate: float = 0.02
    temperature: float = 0.05
    # Teacher of the start vectors: `wordllama` or `minilm` (see initial_vectors).
    init: str = "wordllama"
    # Share of a token's drift from its start undone after every step, for the rarest tokens: the
    # pull is anchor x anchor_half / (anchor_half + the token's document frequency), so a token seen
    # in a handful of pairs keeps its teacher's meaning and a common one learns freely (0 = none).
    anchor: float = 0.0
    anchor_half: float = 100.0
    # Share of the batches cut from one package's pairs (hard negatives; see epoch_batches).
    package_share: float = 0.0
    validation_pool: int = 2000
    tasks: tuple[str, ...] = ("doc", "name", "similar")
    # Chance that a token occurrence is left out of a training bag (0 = none).
    token_dropout: float = 0.0


def _split_words(text: str) -> list[str]:
    return [w for w in "".join(c if c.isalnum() or c == "_" else " " for c in text).split() if w]


def build_vocabulary(pairs: list[Pair], hyper: Hyper) -> tuple[list[str], np.ndarray, int]:
    """The most document-frequent tokens of the training texts, their document frequencies, and
    the number of texts counted."""
    frequency: Counter[str] = Counter()
    texts = 0
    for pair in pairs:
        for text in (pair.description, pair.code):
            frequency.update(set(code_tokens(text)))
            texts += 1
    kept = [(token, count) for token, count in frequency.items() if count >= hyper.min_document_frequency]
    kept.sort(key=lambda item: (-item[1], item[0]))
    kept = kept[: hyper.vocabulary]
    return [token for token, _ in kept], np.array([count for _, count in kept], dtype=np.float64), texts


def initial_vectors(
    tokens: list[str], frequency: np.ndarray, texts: int, pairs: list[Pair], init: str, dims: int, cache: Path
) -> np.ndarray:  # fmt: skip
    """Each token's start: the teacher's vector of its usual word form, unit length, scaled by the
    token's IDF. `init` names the teacher: `wordllama` (l2_supercat's summed Llama-token vectors) or
    `minilm` (the packaged MiniLM's sentence vector of the form, PCA to `dims`; train/distill.py)."""
    sample = [word for pair in pairs[:60_000] for word in _split_words(pair.description + " " + pair.code[:600])]
    surface = _surface_forms(tokens, sample)
    forms = [surface[token] for token in tokens]
    vectors = _minilm_directions(forms, dims, cache) if init == "minilm" else _wordllama_directions(forms)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    idf = np.log(texts / frequency).astype(np.float32)
    return vectors * idf[:, None]


def _wordllama_directions(forms: list[str]) -> np.ndarray:
    embedding, tokenizer = _wordllama_model(64)
    encodings = tokenizer.encode_batch_fast(forms, add_special_tokens=False)
    vectors = np.zeros((len(forms), embedding.shape[1]), dtype=np.float32)
    for row, encoding in enumerate(encodings):
        ids = [i for i in encoding.ids if 0 <= i < embedding.shape[0]]
        if ids:
            vectors[row] = np.asarray(embedding[ids], dtype=np.float32).sum(axis=0)
    return vectors


def _minilm_directions(forms: list[str], dims: int, cache: Path) -> np.ndarray:
    from distill import minilm_vectors, principal_components

    return principal_components(minilm_vectors(forms, cache), dims)


def _surface_forms(tokens: list[str], words: list[str]) -> dict[str, str]:
    """Token -> the identifier part or word it most often stands for in the corpus."""
    wanted = set(tokens)
    forms: dict[str, Counter[str]] = {}
    for word in words:
        parts = split_identifier(word)
        candidates = [(stem(part), part) for part in parts]
        if len(parts) > 1:
            candidates.append((word.lower(), " ".join(parts)))
        for token, form in candidates:
            if token in wanted:
                forms.setdefault(token, Counter())[form] += 1
    return {token: forms[token].most_common(1)[0][0] if token in forms else token for token in tokens}


class Encoded:
    """Texts as flat id/weight arrays with offsets, ready for EmbeddingBag."""

    def __init__(self, texts: list[str], vocabulary: dict[str, int]) -> None:
        cache: dict[str, tuple[int, ...]] = {}

        def lookup(word: str) -> tuple[int, ...]:
            found = cache.get(word)
            if found is None:
                found = tuple(vocabulary[t] for t in code_tokens(word) if t in vocabulary)
                cache[word] = found
            return found

        ids: list[int] = []
        weights: list[float] = []
        offsets = [0]
        for text in texts:
            row_ids, row_weights, _ = code_bag(text, lookup)
            ids.extend(row_ids)
            weights.extend(row_weights)
            offsets.append(len(ids))
        self.ids = torch.tensor(ids, dtype=torch.long)
        self.weights = torch.tensor(weights, dtype=torch.float32)
        self.offsets = torch.tensor(offsets, dtype=torch.long)

    def batch(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The bags of `rows`, gathered without a Python loop over rows."""
        starts, ends = self.offsets[rows], self.offsets[rows + 1]
        lengths = ends - starts
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)[:-1]])
        index = torch.arange(int(lengths.sum())) - torch.repeat_interleave(offsets - starts, lengths)
        return self.ids[index], self.weights[index], offsets


def _embed(bag: torch.nn.EmbeddingBag, data: Encoded, rows: torch.Tensor, dropout: float = 0.0) -> torch.Tensor:
    """Unit vectors of `rows`; in training, each token occurrence is dropped with chance `dropout`,
    so that a pair cannot be learnt by one rare token alone."""
    ids, weights, offsets = data.batch(rows)
    if dropout:
        weights = weights * (torch.rand(weights.shape) >= dropout)
    return F.normalize(bag(ids, offsets, per_sample_weights=weights), dim=1)


def recall(bag: torch.nn.EmbeddingBag, queries: Encoded, codes: Encoded, count: int) -> tuple[float, float]:
    """Recall@1 and @10 of finding each held-out description's own code among all `count` codes."""
    with torch.no_grad():
        rows = torch.arange(count)
        q, c = _embed(bag, queries, rows), _embed(bag, codes, rows)
        scores = q @ c.T
        # The own score is read off the same product: recomputed apart, rounding could rank a
        # description's own code above itself.
        ranks = (scores > scores.diagonal()[:, None]).sum(1)
    return float((ranks < 1).float().mean()), float((ranks < 10).float().mean())


class Validation:
    """One task's held-out pool: each query's own code among the pool's codes."""

    def __init__(self, task: str, pairs: list[Pair], vocabulary: dict[str, int], pool: int) -> None:
        chosen = [p for p in pairs if p.task == task][:pool]
        self.task = task
        self.count = len(chosen)
        self.queries = Encoded([p.description for p in chosen], vocabulary)
        self.codes = Encoded([p.code for p in chosen], vocabulary)

    def recall(self, bag: torch.nn.EmbeddingBag) -> tuple[float, float]:
        return recall(bag, self.queries, self.codes, self.count)


def epoch_batches(
    count: int, packages: torch.Tensor | None, hyper: Hyper, generator: torch.Generator
) -> list[torch.Tensor]:  # fmt: skip
    """The rows of each step of one epoch. Batches are random draws of all pairs, except that a
    `package_share` of them is cut from pairs sorted by package (`packages`: each pair's package
    number): a batch of one package's pairs shares its vocabulary and conventions, so its in-batch
    negatives are harder than a random package's."""
    order = torch.randperm(count, generator=generator)
    steps = count // hyper.batch
    if packages is None:
        return [order[step * hyper.batch : (step + 1) * hyper.batch] for step in range(steps)]
    grouped = order[torch.argsort(packages[order], stable=True)]
    blocks = grouped[: steps * hyper.batch].view(steps, hyper.batch)
    chosen = torch.randperm(steps, generator=generator)[: round(steps * hyper.package_share)]
    taken = torch.zeros(count, dtype=torch.bool)
    taken[blocks[chosen].reshape(-1)] = True
    rest = order[~taken[order]]
    mixed = [blocks[i] for i in chosen.tolist()]
    mixed += [rest[step * hyper.batch : (step + 1) * hyper.batch] for step in range(len(rest) // hyper.batch)]
    return [mixed[i] for i in torch.randperm(len(mixed), generator=generator).tolist()]


def train(
    vectors: np.ndarray, frequency: np.ndarray, train_pairs: list[Pair], val_pairs: list[Pair],
    vocabulary: dict[str, int], hyper: Hyper, seed: int, log: list[str],
) -> np.ndarray:  # fmt: skip
    """Fine-tune the vectors; returns those of the epoch with the best mean held-out recall@10 over
    the tasks (every task is a kind of question the engine asks of the vectors)."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    descriptions = Encoded([p.description for p in train_pairs], vocabulary)
    codes = Encoded([p.code for p in train_pairs], vocabulary)
    checks = [Validation(task, val_pairs, vocabulary, hyper.validation_pool) for task in VALIDATION_TASKS]
    checks = [check for check in checks if check.count]
    bag = torch.nn.EmbeddingBag(vectors.shape[0], vectors.shape[1], mode="sum")
    with torch.no_grad():
        bag.weight.copy_(torch.from_numpy(vectors))
    optimiser = torch.optim.Adam(bag.parameters(), lr=hyper.learning_rate)
    labels = torch.arange(hyper.batch)
    start = torch.from_numpy(vectors).clone()
    pull = torch.from_numpy((hyper.anchor * hyper.anchor_half / (hyper.anchor_half + frequency))[:, None]).float()

    def measure(epoch: str) -> float:
        scores = {check.task: check.recall(bag) for check in checks}
        mean = sum(at10 for _, at10 in scores.values()) / len(scores)
        detail = "; ".join(f"{task} recall@1 {a:.3f} recall@10 {b:.3f}" for task, (a, b) in scores.items())
        _say(log, f"{epoch}: held-out {detail}; mean recall@10 {mean:.3f}")
        return mean

    best = measure(f"epoch 0 ({hyper.init} start)")
    best_vectors = bag.weight.detach().clone()
    best_epoch = 0
    numbers = {name: number for number, name in enumerate(sorted({p.package for p in train_pairs}))}
    packages = torch.tensor([numbers[p.package] for p in train_pairs]) if hyper.package_share else None
    for epoch in range(1, hyper.epochs + 1):
        started = time.time()
        total = 0.0
        steps = epoch_batches(len(train_pairs), packages, hyper, generator)
        for rows in steps:
            q = _embed(bag, descriptions, rows, hyper.token_dropout)
            c = _embed(bag, codes, rows, hyper.token_dropout)
            logits = q @ c.T / hyper.temperature
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            if hyper.anchor:
                with torch.no_grad():
                    bag.weight.sub_(pull * (bag.weight - start))
            total += float(loss.detach())
        mean = measure(f"epoch {epoch} (loss {total / max(len(steps), 1):.3f}, {time.time() - started:.0f} s)")
        if mean > best:
            best, best_vectors, best_epoch = mean, bag.weight.detach().clone(), epoch
    _say(log, f"kept: epoch {best_epoch}, mean held-out recall@10 {best:.3f}")
    return best_vectors.numpy()


def _say(log: list[str], line: str) -> None:
    print(line, flush=True)
    log.append(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", type=Path, default=Path("train/sources.txt"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("engine/semantic/models/code"))
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpora/train"))
    parser.add_argument("--vocabulary", type=int, default=Hyper.vocabulary)
    parser.add_argument("--epochs", type=int, default=Hyper.epochs)
    parser.add_argument("--learning-rate", type=float, default=Hyper.learning_rate)
    parser.add_argument("--init", choices=tuple(TEACHERS), default=Hyper.init)
    parser.add_argument("--anchor", type=float, default=Hyper.anchor)
    parser.add_argument("--anchor-half", type=float, default=Hyper.anchor_half)
    parser.add_argument("--token-dropout", type=float, default=Hyper.token_dropout)
    parser.add_argument("--package-share", type=float, default=Hyper.package_share)
    parser.add_argument("--tasks", default=",".join(Hyper.tasks), help="training tasks, comma-separated")
    parser.add_argument("--name", default="fourfold-code-v3")
    args = parser.parse_args()
    hyper = Hyper(
        vocabulary=args.vocabulary,
        epochs=args.epochs,
        learning_rate=args.learning_rate,
        init=args.init,
        anchor=args.anchor,
        anchor_half=args.anchor_half,
        package_share=args.package_share,
        tasks=tuple(args.tasks.split(",")),
        token_dropout=args.token_dropout,
    )
    torch.set_num_threads(2)
    random.seed(args.seed)
    started = time.time()
    log: list[str] = []

    sources = read_sources(args.sources)
    folders = fetch(sources, args.corpus)
    by_package = mine(folders, args.corpus / "pairs", args.seed)
    held_out = {s.name for s in sources if s.holdout}
    train_pairs = [
        p for name, pairs in by_package.items() if name not in held_out for p in pairs if p.task in hyper.tasks
    ]
    val_pairs = [p for name, pairs in by_package.items() if name in held_out for p in pairs]
    random.Random(args.seed).shuffle(train_pairs)
    random.Random(args.seed + 1).shuffle(val_pairs)
    languages = Counter(p.language for p in train_pairs)
    tasks = Counter(p.task for p in train_pairs)
    _say(log, f"{len(folders)} packages fetched; {len(train_pairs)} training pairs, {len(val_pairs)} held-out pairs")
    _say(log, "training pairs by language: " + ", ".join(f"{k} {v}" for k, v in languages.most_common()))
    _say(log, "training pairs by task: " + ", ".join(f"{k} {v}" for k, v in tasks.most_common()))

    tokens, frequency, texts = build_vocabulary(train_pairs, hyper)
    vocabulary = {token: index for index, token in enumerate(tokens)}
    vectors = initial_vectors(tokens, frequency, texts, train_pairs, hyper.init, hyper.dims, args.corpus / "distill")
    _say(log, f"vocabulary {len(tokens)} tokens x {vectors.shape[1]} dims")
    trained = train(vectors, frequency, train_pairs, val_pairs, vocabulary, hyper, args.seed, log)

    args.out.mkdir(parents=True, exist_ok=True)
    shipped = trained.astype(np.float16)
    np.save(args.out / "vectors.npy", shipped, allow_pickle=False)
    (args.out / "vocab.txt").write_text("\n".join(tokens), encoding="utf-8")
    digest = hashlib.sha256(args.sources.read_bytes()).hexdigest()[:16]
    config = {
        "name": args.name,
        "dims": int(trained.shape[1]),
        "vocabulary": len(tokens),
        "seed": args.seed,
        "digest": hashlib.sha256(shipped.tobytes()).hexdigest()[:12],
        "sources_sha256": digest,
        "hyper": hyper.__dict__,
        "packages": sorted(folders),
        "held_out": sorted(held_out & set(folders)),
        "training_pairs": len(train_pairs),
        "held_out_pairs": len(val_pairs),
        "languages": dict(languages.most_common()),
        "tasks": dict(tasks.most_common()),
        "log": log,
        "minutes": round((time.time() - started) / 60, 1),
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    (args.out / "MODEL_CARD.md").write_text(model_card(config, sources, folders), encoding="utf-8")
    _say(log, f"wrote {args.out} in {math.ceil(time.time() - started)} s")


def model_card(config: dict[str, object], sources: list, folders: dict[str, Path]) -> str:
    """The model card: what the model is, what it was trained on, how to rebuild it, how good it is.
    Search-quality figures measured after the build live in train/MODEL_CARD_QUALITY.md and are
    appended as they are."""
    hyper = config["hyper"]
    assert isinstance(hyper, dict)
    by_kind = Counter(s.kind for s in sources if s.name in folders)
    languages = config["languages"]
    assert isinstance(languages, dict)
    tasks = config["tasks"]
    assert isinstance(tasks, dict)
    log = config["log"]
    assert isinstance(log, list)
    lines = [
        f"# {config['name']}: Fourfold's static code-search embedding",
        "",
        "A token-embedding matrix over Fourfold's code-aware tokens (`fourfold.engine.model.tokens`: identifiers",
        "split at camelCase/snake_case, lowercased, stop words dropped, light stemming, compounds kept).",
        "A text's vector is the sum of its tokens' vectors weighted 1 + ln(count), L2-normalised; token",
        "importance is baked into the vectors' lengths. Loading and embedding need numpy and scipy only.",
        "",
        "## Size",
        f"- vocabulary: {config['vocabulary']} tokens; dimensions: {config['dims']}; float16 `vectors.npy`",
        "",
        "## Data",
        f"- {len(folders)} packages ({', '.join(f'{v} {k}' for k, v in sorted(by_kind.items()))}), pinned in",
        f"  `train/sources.txt` (sha256 prefix {config['sources_sha256']}); never a benchmark repository.",
        f"- {config['training_pairs']} pairs for training, mined with Fourfold's own parser (train/pairs.py):",
        "  `doc` = the first sentences of a doc comment or docstring -> the definition's chunk text (path,",
        "  kind, name words, signature, body) with the doc taken out; `name` = a definition's name words",
        "  -> its body without header and definition line; `similar` = a definition's chunk -> a sibling's",
        "  (a method of the same name in another class of the folder, or a class sharing most method names;",
        "  never a class and its own base)",
        "- by task: " + ", ".join(f"{k} {v}" for k, v in tasks.items()),
        "- by language: " + ", ".join(f"{k} {v}" for k, v in languages.items()),
        f"- held out for validation (whole packages): {', '.join(config['held_out'])}"  # type: ignore[arg-type]
        f" ({config['held_out_pairs']} pairs)",
        "",
        "## Training",
        "- start: each token's vector is " + TEACHERS[str(hyper["init"])] + " of its usual word form, unit",
        "  length, times the token's IDF over the training texts",
        f"- symmetric InfoNCE with in-batch negatives, temperature {hyper['temperature']}, batch {hyper['batch']},",
        f"  Adam lr {hyper['learning_rate']}, anchor {hyper['anchor']} x {hyper['anchor_half']}"
        f" / ({hyper['anchor_half']} + document frequency)",
        f"  (share of a token's drift from its start undone per step), token dropout {hyper['token_dropout']},"
        f" {hyper['epochs']} epochs, {hyper['package_share']} of the batches from one package; the epoch"
        " with the best mean held-out",
        "  recall@10 over the three tasks is kept",
        f"- seed {config['seed']}; {config['minutes']} minutes on 2 CPU cores",
        "- command: `python train/build_model.py --sources train/sources.txt --seed 0"
        " --out engine/semantic/models/code/`",
        "  (needs the `train` extra: `pip install -e '.[train]'`)",
        "",
        "## Held-out retrieval while training (the vocabulary alone, no out-of-vocabulary fallback; each"
        f" task's query -> its own code among up to {hyper['validation_pool']} held-out pairs of that task)",
        "",
        *(f"- {line}" for line in log if line.startswith(("epoch", "kept"))),
        "",
    ]
    quality = Path(__file__).parent / "MODEL_CARD_QUALITY.md"
    if quality.exists():
        lines.append(quality.read_text(encoding="utf-8").rstrip() + "\n")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
