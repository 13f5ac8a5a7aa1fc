/** What the worker logs: a derivation run's outcome. */
export interface WorkerLogEntry {
  msg: 'derive' | 'derive failed'
  tenant: string
  ms: number
  error?: string
  result?: unknown
}

export interface ProfileWorkerOptions {
  /** Derives one tenant's changed profiles (the server runs `deriveProfiles` under the tenant's lock). */
  derive: (tenant: string) => Promise<unknown>
  /** Quiet time after the last change before a run starts, so that a burst becomes one run (ms). */
  delayMs?: number
  /** Longest wait under a steady stream of changes (ms): profiles still follow within this. */
  maxDelayMs?: number
  /**
   * Longest wait while a burst of changes streams in (more than `burstPerSecond` a second since
   * the first one waiting); by default 60 s, or `maxDelayMs` when that is given.
   */
  burstMaxDelayMs?: number
  /** Changes a second from which a stream counts as a burst (default 200). */
  burstPerSecond?: number
  /** Wait after a failed run, doubled per failure up to a minute (ms). */
  retryMs?: number
  log?: (entry: WorkerLogEntry) => void
}

interface TenantState {
  timer: NodeJS.Timeout | undefined
  firstAt: number | undefined
  /** Changes asked for since `firstAt`. */
  changes: number
  running: Promise<void> | undefined
  again: boolean
  failures: number
}

/**
 * The spec's asynchronous processing: changes acknowledged by the API are derived into profiles
 * in the background, debounced (a burst of skill events makes one run), one run at a time per
 * tenant, a change during a run making one more run after it. Nothing is held in memory that the
 * database does not have: derivation picks up whatever changed since its last run (change_seq),
 * so a run lost to a crash is done by the first run after the restart.
 */
export class ProfileWorker {
  private readonly states = new Map<string, TenantState>()
  private stopped = false
  private readonly delayMs: number
  private readonly maxDelayMs: number
  private readonly burstMaxDelayMs: number
  private readonly burstPerSecond: number
  private readonly retryMs: number

  constructor(private readonly options: ProfileWorkerOptions) {
    this.delayMs = options.delayMs ?? 300
    // Under a steady stream a run every 10 s: each run has a fixed cost (finding what changed,
    // loading the vocabulary), which runs every 2 s would spend most of a core on.
    this.maxDelayMs = options.maxDelayMs ?? 10_000
    // A derivation takes both cores for seconds (its worker threads): one every 10 s during a
    // burst of thousands of skill events a second would halve their acknowledgement. It waits
    // for the burst instead, and then derives each employee of the burst once.
    this.burstMaxDelayMs = options.burstMaxDelayMs ?? options.maxDelayMs ?? 60_000
    this.burstPerSecond = options.burstPerSecond ?? 200
    this.retryMs = options.retryMs ?? 1000
  }

  /** Asks for a run of the tenant's derivation soon. */
  schedule(tenant: string): void {
    if (this.stopped) return
    const state = this.stateOf(tenant)
    if (state.running) {
      state.again = true
      return
    }
    this.arm(tenant, state, this.delayMs)
  }

  /** Resolves once the tenant has no run scheduled or running. */
  async idle(tenant: string): Promise<void> {
    for (;;) {
      const state = this.states.get(tenant)
      if (!state || (!state.running && !state.timer)) return
      if (state.running) await state.running
      else await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** Cancels scheduled runs and waits for the running ones: their work is committed or not at all. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const state of this.states.values()) {
      clearTimeout(state.timer)
      state.timer = undefined
    }
    await Promise.all([...this.states.values()].map((state) => state.running))
  }

  private stateOf(tenant: string): TenantState {
    let state = this.states.get(tenant)
    if (!state) {
      state = {
        timer: undefined,
        firstAt: undefined,
        changes: 0,
        running: undefined,
        again: false,
        failures: 0,
      }
      this.states.set(tenant, state)
    }
    return state
  }

  private arm(tenant: string, state: TenantState, delay: number): void {
    const now = Date.now()
    state.firstAt ??= now
    state.changes++
    clearTimeout(state.timer)
    const elapsed = Math.max(1, now - state.firstAt)
    const longest =
      (state.changes * 1000) / elapsed > this.burstPerSecond ? this.burstMaxDelayMs : this.maxDelayMs
    const wait = Math.max(0, Math.min(delay, state.firstAt + Math.max(longest, delay) - now))
    state.timer = setTimeout(() => this.fire(tenant, state), wait)
    state.timer.unref()
  }

  private fire(tenant: string, state: TenantState): void {
    state.timer = undefined
    state.firstAt = undefined
    state.changes = 0
    state.again = false
    state.running = this.run(tenant, state).finally(() => {
      state.running = undefined
      if (this.stopped) return
      if (state.failures > 0) {
        this.arm(tenant, state, Math.min(60_000, this.retryMs * 2 ** (state.failures - 1)))
      } else if (state.again) {
        this.arm(tenant, state, this.delayMs)
      }
    })
  }

  private async run(tenant: string, state: TenantState): Promise<void> {
    const started = performance.now()
    try {
      const result = await this.options.derive(tenant)
      state.failures = 0
      this.options.log?.({ msg: 'derive', tenant, ms: Math.round(performance.now() - started), result })
    } catch (error) {
      state.failures++
      this.options.log?.({
        msg: 'derive failed',
        tenant,
        ms: Math.round(performance.now() - started),
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }
}
