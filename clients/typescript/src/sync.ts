// The sync helper (issue 47): keep the change feed's cursor, catch up over GET .../changes,
// then follow the live stream from the same cursor, reconnecting with backoff. What the app
// does with a change is its own (apply); the helper guarantees each change is handed over
// at least once, in commit order, and the cursor is saved only after its change was applied.
import type { components } from "./schema.js";
import { TandemError, type LiveEvent, type StreamClose, type TandemClient } from "./index.js";

/** One change of the feed: `{kind, id, op, data}`; `data` (a put's) is the REST read's JSON. */
export type Change = components["schemas"]["Change"];

export interface SyncOptions {
  userId?: string;
  /** The cursor kept from the last run (undefined: none yet, the helper starts afresh). */
  load: () => string | undefined | Promise<string | undefined>;
  /** Keep the cursor (after the changes before it were applied). */
  save: (cursor: string) => void | Promise<void>;
  /** Apply one change by kind and id: a put stores `data`, a delete removes the record. */
  apply: (change: Change) => void | Promise<void>;
  /**
   * Refetch everything over REST: at the first run, and when the server can no longer
   * serve the cursor (410 cursor_expired, or the stream's `reset`). The helper then goes on
   * from a cursor taken before the refetch, so nothing that changed meanwhile is missed.
   */
  refetch: () => void | Promise<void>;
  /** The stream's other events (`message.sent`, ...): hints for the UI, not to be stored. */
  onEvent?: (e: LiveEvent) => void;
  /** A failed request or connection (retried with backoff unless final, e.g. 401/403). */
  onError?: (err: unknown) => void;
  /** Changes per page of the catch-up (1-500, default 500). */
  pageSize?: number;
  /** First retry delay, doubled up to maxRetryMs (defaults 1000 and 30000). */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface Sync {
  /** Settles when the sync stops for good (close(), or the stream's final end or error). */
  readonly done: Promise<StreamClose>;
  /** The cursor of the last change applied. */
  readonly cursor: string | undefined;
  close(): void;
}

/**
 * Start syncing: load the cursor (none: take the current one and refetch), catch up page by
 * page, then follow the stream with Last-Event-ID = the cursor. A 410 cursor_expired or a
 * `reset` calls refetch and restarts from a fresh cursor.
 */
export function sync(client: TandemClient, opts: SyncOptions): Sync {
  return new Syncer(client, opts);
}

class Syncer implements Sync {
  readonly done: Promise<StreamClose>;
  cursor: string | undefined;
  private resolveDone!: (c: StreamClose) => void;
  private stopped = false;
  private stream: { close(): void; done: Promise<StreamClose> } | undefined;
  private wake: (() => void) | undefined;
  // Every change and reset is applied in this one chain: in order, one at a time.
  private chain: Promise<void> = Promise.resolve();
  private readonly userId: string;

  constructor(
    private readonly client: TandemClient,
    private readonly opts: SyncOptions,
  ) {
    const id = opts.userId ?? client.userId;
    if (!id) throw new Error("tandem: no userId: sign in first or pass one");
    this.userId = id;
    this.done = new Promise((r) => (this.resolveDone = r));
    void this.run();
  }

  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stream?.close();
    this.wake?.();
    this.resolveDone({ kind: "closed" });
  }

  private async run(): Promise<void> {
    const base = this.opts.retryMs ?? 1000;
    const max = this.opts.maxRetryMs ?? 30000;
    let delay = base;
    this.cursor = await this.opts.load();
    for (;;) {
      try {
        if (this.cursor === undefined) await this.fresh();
        await this.catchUp();
        delay = base;
        const end = await this.follow(base, max);
        if (end !== undefined) return this.resolveDone(end);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof TandemError && err.status === 410) {
          this.cursor = undefined; // cursor_expired: refetch, then from a fresh cursor
          continue;
        }
        this.opts.onError?.(err);
        if (err instanceof TandemError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          return this.resolveDone({ kind: "error", error: err });
        }
      }
      if (this.stopped) return;
      await this.sleep(delay);
      if (this.stopped) return;
      delay = Math.min(delay * 2, max);
    }
  }

  /**
   * Follow the stream from the cursor. Answers how it ended for good, or undefined when an
   * apply failed: the stream is closed and the loop catches up again from the last change
   * applied (so none is skipped).
   */
  private async follow(base: number, max: number): Promise<StreamClose | undefined> {
    let failed = false;
    this.halted = false;
    const s = this.client.stream(
      {
        onEvent: (e) => {
          if (e.event === "change") {
            const id = e.id;
            const change = e.data as Change;
            this.enqueue(async () => {
              await this.opts.apply(change);
              await this.keep(id);
            });
          } else {
            this.opts.onEvent?.(e);
          }
        },
        onReset: () => this.enqueue(() => this.fresh()),
        onError: (err) => this.opts.onError?.(err),
      },
      { userId: this.userId, resumeFrom: () => this.cursor, retryMs: base, maxRetryMs: max },
    );
    this.stream = s;
    this.failed = () => {
      failed = true;
      s.close();
    };
    const end = await s.done;
    await this.chain;
    this.chain = Promise.resolve();
    if (this.stopped) return { kind: "closed" };
    return failed ? undefined : end;
  }

  /** The current cursor, taken before the refetch: whatever changes during it follows. */
  private async fresh(): Promise<void> {
    const page = await this.page(undefined);
    await this.opts.refetch();
    await this.keep(page.cursor);
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const page = await this.page(this.cursor);
      for (const c of page.changes) {
        if (this.stopped) return;
        await this.opts.apply(c);
      }
      await this.keep(page.cursor);
      if (!page.hasMore || this.stopped) return;
    }
  }

  private async page(since: string | undefined) {
    const query: { since?: string; limit?: number } = { limit: this.opts.pageSize ?? 500 };
    if (since !== undefined) query.since = since;
    const r = await this.client.api.GET("/api/users/user/{userId}/changes", {
      params: { path: { userId: this.userId }, query },
    });
    if (r.error !== undefined || !r.response.ok || !r.data) {
      const e = r.error;
      throw new TandemError(r.response.status, e && typeof e === "object" ? e : undefined, undefined, r.response);
    }
    return r.data;
  }

  private async keep(cursor: string): Promise<void> {
    if (this.stopped) return;
    this.cursor = cursor;
    await this.opts.save(cursor);
  }

  // Set by follow: what a failed step does (stop the stream; the loop catches up again).
  private failed: () => void = () => {};

  private halted = false; // a step failed: the rest of this stream's steps are skipped

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain
      .then(async () => {
        if (this.halted || this.stopped) return;
        await step();
      })
      .catch((err: unknown) => {
        this.halted = true;
        this.opts.onError?.(err);
        this.failed();
      });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(t);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }
}
