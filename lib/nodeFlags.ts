/**
 * The Node flags each of the service's processes runs with. scripts/start.ts
 * and the isolated stacks (end-to-end tests, benchmarks, chaos) pass them;
 * docker-compose.yml, package.json's start scripts and the Dockerfile's
 * comment spell them out, and test/unit/compose.test.ts keeps those equal
 * to these.
 *
 * The worker marks its heap only at its limit (no incremental marking). Its
 * heap holds ~45 MB, and V8 starts incremental marking whenever the old
 * generation's room left is under the young generation's capacity: between
 * a book's audio passes that meant a full mark-compact every ~0.3 s that
 * freed 1-6 MB (~80 over a 10-chapter book, with their concurrent marking
 * threads), about 40 % of the worker's CPU in the conversion. Marked at its
 * limit, the same book took 7 (pauses of ~45 ms, which no activity notices).
 * Figures: docs/performance.md, "The worker's garbage collector (2026-12-07)".
 */
export const NODE_FLAGS: Record<'api' | 'worker', readonly string[]> = {
  api: [],
  worker: ['--no-incremental-marking'],
};
