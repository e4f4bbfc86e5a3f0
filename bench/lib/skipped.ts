/**
 * Thrown by a bench whose prerequisite this machine lacks (root, network namespaces, …): the runner reports
 * it skipped with the reason, writes none of its figures and does not count it as failed.
 */
export class BenchSkipped extends Error {
  override readonly name = 'BenchSkipped';
}
