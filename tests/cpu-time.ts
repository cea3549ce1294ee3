/**
 * Milliseconds of CPU this process spent since `since` (a `process.cpuUsage()` reading), user and
 * system. For the complexity guards (a hostile input must cost linear work): unlike wall time, it is
 * not stretched by other work on a loaded machine.
 */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}
