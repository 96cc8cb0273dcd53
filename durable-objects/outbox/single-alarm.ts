// One alarm per Durable Object, shared by everything in it that needs time to pass (outbox retries,
// billing settlement, expiry, heartbeat timeout, fleet push): each capability says when it next needs
// to run, and the one platform alarm is set to the earliest of those times.
export interface AlarmCapability {
  /** When it next needs the alarm, on the object's clock; null when nothing is due. */
  nextAlarmMs(nowMs: number): number | null;
  /** Its work when the alarm rings (whatever is due; running early does no harm). */
  onAlarm(nowMs: number): void | Promise<void>;
  /** Its work right after a state change, when that should not wait for the alarm (deliveries). */
  onChange?(): Promise<void>;
}

/** How soon a change's backstop alarm rings (see `backstop`). */
export const BACKSTOP_MS = 1_000;

export class SingleAlarm {
  private readonly ctx: DurableObjectState;
  private readonly now: () => number;
  private readonly capabilities: AlarmCapability[] = [];
  /** When the alarm is set to ring, as this instance last set it (null: none; unknown after a restart). */
  private armedAtMs: number | null | undefined = undefined;

  /** `now` is the object's clock; the platform alarm itself always runs on real time. */
  constructor(ctx: DurableObjectState, now: () => number) {
    this.ctx = ctx;
    this.now = now;
  }

  /** Adds capabilities; the alarm runs them in the order they were added. */
  register(...capabilities: AlarmCapability[]): void {
    this.capabilities.push(...capabilities);
  }

  /** The object's `alarm()` handler: every capability's work, then the next alarm. */
  async ring(): Promise<void> {
    // The alarm that is ringing is used up: until the reschedule below, none is set.
    this.armedAtMs = null;
    const nowMs = this.now();
    for (const capability of this.capabilities) await capability.onAlarm(nowMs);
    await this.reschedule();
  }

  /** After a state change: the capabilities' immediate work in the background, then the alarm is reset. */
  afterChange(): void {
    this.ctx.waitUntil(Promise.all(this.capabilities.map((c) => c.onChange?.())).then(() => this.reschedule()));
  }

  /**
   * In the turn of a change, beside its writes (an outbox row): the alarm rings within BACKSTOP_MS
   * unless it is set to ring sooner. Not awaited, so it is written with the change itself: an object
   * reset before `afterChange`'s work is done (a deployment, a crash, an eviction mid-request) still
   * wakes on its own and finishes it, where nothing else might call it again. `afterChange` then
   * sets the alarm to its right time.
   */
  backstop(): void {
    const atMs = Date.now() + BACKSTOP_MS;
    if (this.armedAtMs !== undefined && this.armedAtMs !== null && this.armedAtMs <= atMs) return;
    this.armedAtMs = atMs;
    void this.ctx.storage.setAlarm(atMs);
  }

  /** Sets the alarm to the earliest time any capability needs, or deletes it when none does. */
  async reschedule(): Promise<void> {
    const nowMs = this.now();
    const due = this.capabilities.map((c) => c.nextAlarmMs(nowMs)).filter((at): at is number => at !== null);
    if (due.length === 0) {
      this.armedAtMs = null;
      return this.ctx.storage.deleteAlarm();
    }
    // Alarms run on real time while the object's clock may be another (tests move the AccountDO's
    // billing clock): the alarm keeps the distance to the due time, never a time in the past.
    this.armedAtMs = Date.now() + Math.max(0, Math.min(...due) - nowMs);
    await this.ctx.storage.setAlarm(this.armedAtMs);
  }
}
