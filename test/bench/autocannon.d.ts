// autocannon ships no types; the benchmarks use its promise form with plain option objects.
declare module 'autocannon' {
  const autocannon: (options: Record<string, unknown>) => Promise<unknown>
  export default autocannon
}
