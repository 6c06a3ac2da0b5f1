// Tandem's TypeScript client: a thin hand-written layer over types generated from the
// service's OpenAPI document (src/schema.ts, `make client`) and openapi-fetch.
//
// Everything typed here is derived from the generated types, so regenerating after the
// document changes (an error code enum, named action schemas, a LiveEvent union) tightens
// these types without editing this file.
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths } from "./schema.js";
export { sync, type Change, type SyncOptions, type Sync } from "./sync.js";

type Schemas = components["schemas"];
type JSONBody<R> = R extends { content: { "application/json": infer B } } ? B : never;
type OK<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: infer R };
}
  ? JSONBody<R>
  : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

/** The document's error body. */
export type ErrorBody = Schemas["Error"];
/** The document's error code: a string today, the enum's union once the document has one. */
export type ErrorCode = NonNullable<ErrorBody["code"]>;

/** A non-2xx answer (or a network failure: status 0, code undefined). */
export class TandemError extends Error {
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly body: ErrorBody | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;

  constructor(status: number, body: ErrorBody | undefined, message?: string, response?: Response) {
    super(message ?? body?.message ?? body?.error ?? `HTTP ${status}`);
    this.name = "TandemError";
    this.status = status;
    this.code = body?.code as ErrorCode | undefined;
    this.body = body;
    this.requestId = response?.headers.get("X-Request-Id") ?? undefined;
    const ra = response?.headers.get("Retry-After");
    this.retryAfter = ra != null && ra !== "" && !Number.isNaN(Number(ra)) ? Number(ra) : undefined;
  }
}

async function errorFromResponse(res: Response): Promise<TandemError> {
  let body: ErrorBody | undefined;
  try {
    const j: unknown = await res.json();
    if (j && typeof j === "object") body = j as ErrorBody;
  } catch {
    /* not JSON */
  }
  return new TandemError(res.status, body, undefined, res);
}

function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.error !== undefined || !r.response.ok) {
    const e = r.error;
    const body = e && typeof e === "object" ? (e as ErrorBody) : undefined;
    throw new TandemError(r.response.status, body, undefined, r.response);
  }
  return r.data as T;
}

// Routes that need the service key (X-API-Key) besides the bearer token: the document's
// `apiKey` security requirement (partner connections and messages).
const API_KEY_PREFIXES = ["/api/messages/", "/api/partnerConnections/"];

export interface TandemClientOptions {
  /** The service's base URL, e.g. "https://api.example.com" (no trailing /api). */
  baseUrl: string;
  /** A bearer token from an earlier sign-in (else set by signUp/verify/login). */
  token?: string;
  /** One of TANDEM_API_KEYS: sent as X-API-Key on the routes that need it. */
  apiKey?: string;
  /** A fetch implementation (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Called whenever the token changes (sign-in, logout), e.g. to persist it. */
  onToken?: (token: string | undefined) => void;
}

export type AuthReply = Schemas["AuthReply"];
export type CalendarEvent = Schemas["CalendarEvent"];
export type CalendarEventWrite = Schemas["CalendarEventWrite"];
export type Message = Schemas["Message"];
export type PairingStatus = OK<"/api/users/user/{userId}/pairing", "get">;
export type PairingReply = OK<"/api/users/user/{userId}/pairing", "post">;
export type UploadReply = OK<"/api/users/user/{userId}/images", "post">;
export type SendMessageReply = OK<"/api/messages/send", "post">;
export type NewEvent = Omit<
  Extract<Body<"/api/users/user/{userId}/events", "post">, object>,
  "action"
>;
/** Widths `?w=` takes on an image url. */
export type ThumbnailWidth = 160 | 320 | 640 | 1280;

/** Add ?w=WIDTH to an image url (`files[i].data.url`): the thumbnail that wide (no token needed). */
export function thumbnailUrl(url: string, width: ThumbnailWidth): string {
  const u = new URL(url);
  u.searchParams.set("w", String(width));
  return u.toString();
}

export class TandemClient {
  /** The typed openapi-fetch client: every route of the document, with the same auth. */
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private tokenValue: string | undefined;
  private userIdValue: string | undefined;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly onToken: ((t: string | undefined) => void) | undefined;

  constructor(opts: TandemClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.tokenValue = opts.token;
    this.apiKey = opts.apiKey;
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.onToken = opts.onToken;
    this.api = createFetchClient<paths>({ baseUrl: this.baseUrl, fetch: this.fetchImpl });
    const auth: Middleware = {
      onRequest: ({ request, schemaPath }) => {
        if (this.tokenValue && !request.headers.has("Authorization")) {
          request.headers.set("Authorization", `Bearer ${this.tokenValue}`);
        }
        if (this.apiKey && API_KEY_PREFIXES.some((p) => schemaPath.startsWith(p))) {
          request.headers.set("X-API-Key", this.apiKey);
        }
        return request;
      },
    };
    this.api.use(auth);
  }

  get token(): string | undefined {
    return this.tokenValue;
  }
  /** The signed-in user's id (from the last sign-in answer), if known. */
  get userId(): string | undefined {
    return this.userIdValue;
  }
  setToken(token: string | undefined, userId?: string): void {
    this.tokenValue = token;
    if (userId !== undefined || token === undefined) this.userIdValue = userId;
    this.onToken?.(token);
  }

  private me(userId?: string): string {
    const id = userId ?? this.userIdValue;
    if (!id) throw new Error("tandem: no userId: sign in first or pass one");
    return id;
  }

  private adopt(reply: AuthReply): AuthReply {
    if (reply.token) this.setToken(reply.token, reply.userId);
    else if (reply.userId) this.userIdValue = reply.userId;
    return reply;
  }

  // --- accounts -----------------------------------------------------------------------

  /** Step 1 of sign-up: creates the account and mails a 6-digit code (`verification_required`). */
  async signUp(email: string, password: string): Promise<AuthReply> {
    const r = await this.api.POST("/api/auth/signup/email", { body: { email, password } });
    return this.adopt(unwrap(r));
  }

  /** Step 2 of sign-up: the mailed code; answers the token, which the client keeps. */
  async verify(userId: string, verificationCode: string): Promise<AuthReply> {
    const r = await this.api.POST("/api/auth/signup/email", { body: { userId, verificationCode } });
    return this.adopt(unwrap(r));
  }

  /** Log in with e-mail and password; the client keeps the token. */
  async login(email: string, password: string): Promise<AuthReply> {
    const r = await this.api.POST("/api/auth/login/email", { body: { email, password } });
    return this.adopt(unwrap(r));
  }

  /** Revoke this token (all: every token of the user); ends the streams opened with them. */
  async logout(all = false): Promise<void> {
    const r = await this.api.POST("/api/auth/logout", { body: { all } });
    unwrap(r);
    this.setToken(undefined);
  }

  // --- pairing ------------------------------------------------------------------------

  async pairing(userId?: string): Promise<PairingStatus> {
    const r = await this.api.GET("/api/users/user/{userId}/pairing", {
      params: { path: { userId: this.me(userId) } },
    });
    return unwrap(r);
  }

  /** A 6-character code (valid 24 h) to give to the partner. */
  async generatePairingCode(userId?: string): Promise<{ code: string; expiresAt: number }> {
    const r = await this.api.POST("/api/users/user/{userId}/pairing", {
      params: { path: { userId: this.me(userId) } },
      body: { action: "generate-code" },
    });
    const data = unwrap(r) as PairingReply;
    if (!("code" in data) || typeof data.code !== "string") {
      throw new TandemError(r.response.status, undefined, "generate-code answered no code", r.response);
    }
    return data as { code: string; expiresAt: number };
  }

  /** Enter the partner's code: pending until they enter the caller's, then connected. */
  async submitPairingCode(targetCode: string, userId?: string): Promise<PairingReply> {
    const r = await this.api.POST("/api/users/user/{userId}/pairing", {
      params: { path: { userId: this.me(userId) } },
      body: { action: "submit-code", targetCode },
    });
    return unwrap(r);
  }

  // --- messages (bearer + X-API-Key) --------------------------------------------------

  async sendMessage(body: string): Promise<SendMessageReply> {
    const r = await this.api.POST("/api/messages/send", { body: { body } });
    return unwrap(r);
  }

  async listMessages(query?: { limit?: number; cursor?: string }): Promise<Message[]> {
    const r = await this.api.GET("/api/messages/list", { params: { query: query ?? {} } });
    return unwrap(r);
  }

  // --- calendar events ----------------------------------------------------------------

  async createEvent(event: NewEvent, userId?: string): Promise<CalendarEvent> {
    const r = await this.api.POST("/api/users/user/{userId}/events", {
      params: { path: { userId: this.me(userId) } },
      body: { ...event, action: "create" } as Body<"/api/users/user/{userId}/events", "post">,
    });
    return unwrap(r);
  }

  async getEvent(eventId: string, userId?: string): Promise<CalendarEvent> {
    const r = await this.api.GET("/api/users/user/{userId}/events/{eventId}", {
      params: { path: { userId: this.me(userId), eventId } },
    });
    return unwrap(r) as CalendarEvent;
  }

  async listEvents(query?: { limit?: number; cursor?: string }, userId?: string): Promise<CalendarEvent[]> {
    const r = await this.api.GET("/api/users/user/{userId}/events", {
      params: { path: { userId: this.me(userId) }, query: query ?? {} },
    });
    return unwrap(r) as CalendarEvent[];
  }

  // --- images -------------------------------------------------------------------------

  /**
   * Upload 1 to 4 images (multipart, each in a part named `file`); the format is decided
   * by the bytes (JPEG, PNG, WEBP). Answers the files' capability urls and the group id.
   */
  async uploadImages(
    files: Array<Blob | { data: Blob | ArrayBuffer | Uint8Array; name?: string; type?: string }>,
    userId?: string,
  ): Promise<UploadReply> {
    const form = new FormData();
    files.forEach((f, i) => {
      if (f instanceof Blob) {
        form.append("file", f, (f as File).name ?? `image-${i}`);
      } else {
        const blob =
          f.data instanceof Blob ? f.data : new Blob([f.data as BlobPart], { type: f.type ?? "application/octet-stream" });
        form.append("file", blob, f.name ?? `image-${i}`);
      }
    });
    const r = await this.api.POST("/api/users/user/{userId}/images", {
      params: { path: { userId: this.me(userId) } },
      // the typed body is the schema's shape; the wire body is the FormData built above
      body: { file: [] },
      bodySerializer: () => form,
    });
    return unwrap(r);
  }

  /** Fetch a file (or its thumbnail) by url: no token needed, the key is the credential. */
  async fetchFile(url: string, width?: ThumbnailWidth): Promise<Response> {
    const res = await this.fetchImpl(width ? thumbnailUrl(url, width) : url);
    if (!res.ok) throw await errorFromResponse(res);
    return res;
  }

  // --- live stream --------------------------------------------------------------------

  /**
   * Open the live partner stream (Server-Sent Events over fetch streaming): each event is
   * `{id, event, data}` with `data` the JSON the REST read returns. Reconnects with
   * Last-Event-ID after a dropped connection or an `end` the client may come back from
   * (`shutdown`, `lagging`); stops on `revoked`, `expired` and `replaced`, on a 4xx answer
   * (401, 403, ...), or on close(), after which no handler is called.
   */
  stream(handlers: StreamHandlers, opts: StreamOptions = {}): LiveStream {
    return new LiveStream(this, this.fetchImpl, this.me(opts.userId), handlers, opts);
  }

  /** @internal */
  authHeader(): string | undefined {
    return this.tokenValue ? `Bearer ${this.tokenValue}` : undefined;
  }
}

// ---------------------------------------------------------------------------------------
// Live stream

type StreamOp = paths["/api/users/user/{userId}/stream"]["get"];
type LiveEventFromDoc = Schemas extends { LiveEvent: infer L } ? L : never;
type LiveEndFromDoc = Schemas extends { LiveEnd: { reason: infer R } } ? R : never;

/**
 * A live event as the stream delivers it: `event` is the SSE `event:` line (its type,
 * e.g. "message.sent"), `data` the JSON of its `data:` line (what the REST read returns),
 * `id` a cursor of the change feed (every event's: resume with the last one seen). Typed by the document's LiveEvent union (discriminated on `event`)
 * once it has one; `reset` and `end` go to onReset and onEnd instead.
 */
export type LiveEvent = ([LiveEventFromDoc] extends [never]
  ? { event: string; data: unknown }
  : Exclude<LiveEventFromDoc, { event: "reset" | "end" }>) & { id: string };

/** The `event:` names of LiveEvent. */
export type LiveEventType = LiveEvent["event"];

/** The data of the live event named T: `LiveEventData<"message.sent">` is the Message schema. */
export type LiveEventData<T extends LiveEventType> = LiveEvent extends infer E
  ? E extends { event: infer N; data: infer D }
    ? T extends N
      ? D
      : never
    : never
  : never;

/** Why the server ended a stream (`event: end`, data `{reason}`); the document's enum once it has one. */
export type EndReason = [LiveEndFromDoc] extends [never]
  ? "revoked" | "expired" | "lagging" | "replaced" | "shutdown" | (string & {})
  : LiveEndFromDoc;

/**
 * What the stream calls. Every handler is optional; none is called after close(), not even
 * for events that arrived in the same read as one whose handler called close().
 */
export interface StreamHandlers {
  /** A live event (`message.sent`, `event.created`, ...): narrow on `e.event` to type `e.data`. */
  onEvent?: (e: LiveEvent) => void;
  /**
   * `event: reset`, at the start of a connection whose Last-Event-ID the change feed cannot
   * serve (past the retention, another user's): refetch over REST, then carry on.
   */
  onReset?: () => void;
  /** `event: end`, before the server closes the stream (reconnects unless the reason is final). */
  onEnd?: (reason: EndReason) => void;
  /**
   * A connection is open: the server answered 200 with a body, before any of its events.
   * Called once per connection, so again after each reconnection (the retry delay starts
   * over then). The changes the feed holds after Last-Event-ID come after it.
   */
  onOpen?: () => void;
  /** A failed connection (the stream retries unless the error is final, e.g. 401/403). */
  onError?: (err: unknown) => void;
}

export interface StreamOptions {
  userId?: string;
  /** Resume after this event id. */
  lastEventId?: string;
  /**
   * The Last-Event-ID of each connection, asked for at each one instead of the last id seen
   * (the sync helper resumes from the last change it applied, never from another event's id).
   */
  resumeFrom?: () => string | undefined;
  /** Reconnect at all (default true). */
  reconnect?: boolean;
  /** First delay between reconnections, doubled up to maxRetryMs (default 1000). */
  retryMs?: number;
  maxRetryMs?: number;
}

/** Reasons after which reconnecting with the same token is pointless or harmful. */
const FINAL_REASONS: ReadonlySet<string> = new Set(["revoked", "expired", "replaced"]);

export type StreamClose =
  | { kind: "end"; reason: EndReason }
  | { kind: "closed" }
  | { kind: "error"; error: unknown };

export class LiveStream {
  /** The last event id seen (sent as Last-Event-ID on reconnection). */
  lastEventId: string | undefined;
  /** Settles when the stream stops for good. */
  readonly done: Promise<StreamClose>;
  private readonly abort = new AbortController();
  private resolveDone!: (c: StreamClose) => void;
  private stopped = false;

  constructor(
    private readonly client: TandemClient,
    private readonly fetchImpl: typeof fetch,
    private readonly userId: string,
    private readonly h: StreamHandlers,
    private readonly opts: StreamOptions,
  ) {
    this.lastEventId = opts.lastEventId;
    this.done = new Promise((r) => (this.resolveDone = r));
    void this.run();
  }

  /**
   * Stop: aborts the connection and settles done with {kind: "closed"} at once (unless it
   * had settled already). No handler is called after it, even when called from a handler.
   */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    this.resolveDone({ kind: "closed" });
  }

  /** Whether close() was called. */
  get closed(): boolean {
    return this.stopped;
  }

  private async run(): Promise<void> {
    const base = this.opts.retryMs ?? 1000;
    const max = this.opts.maxRetryMs ?? 30000;
    let delay = base;
    for (;;) {
      let reason: EndReason | undefined;
      try {
        reason = await this.connectOnce(() => (delay = base));
      } catch (err) {
        if (this.stopped) return;
        this.h.onError?.(err);
        if (err instanceof TandemError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          return this.resolveDone({ kind: "error", error: err });
        }
      }
      if (this.stopped) return;
      if (reason !== undefined && FINAL_REASONS.has(reason)) {
        return this.resolveDone({ kind: "end", reason });
      }
      if (this.opts.reconnect === false) {
        return this.resolveDone(reason !== undefined ? { kind: "end", reason } : { kind: "closed" });
      }
      await sleep(delay, this.abort.signal);
      if (this.stopped) return;
      delay = Math.min(delay * 2, max);
    }
  }

  /** One connection: answers the `end` reason, or undefined when the body just ended. */
  private async connectOnce(opened: () => void): Promise<EndReason | undefined> {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    const auth = this.client.authHeader();
    if (auth) headers["Authorization"] = auth;
    const resume = this.opts.resumeFrom ? this.opts.resumeFrom() : this.lastEventId;
    if (resume) headers["Last-Event-ID"] = resume;
    const url = `${this.client.baseUrl}/api/users/user/${encodeURIComponent(this.userId)}/stream`;
    const res = await this.fetchImpl(url, { headers, signal: this.abort.signal });
    if (this.stopped) {
      void res.body?.cancel().catch(() => {});
      return undefined;
    }
    if (!res.ok) throw await errorFromResponse(res);
    if (!res.body) throw new TandemError(res.status, undefined, "stream: no body", res);
    opened();
    this.h.onOpen?.();
    let endReason: EndReason | undefined;
    // One read may hold several events: a handler's close() stops the rest (the loop's
    // exit cancels the body).
    for await (const msg of parseSSE(res.body)) {
      if (this.stopped) break;
      if (msg.id !== undefined) this.lastEventId = msg.id;
      if (msg.event === "end") {
        endReason = parseReason(msg.data);
        this.h.onEnd?.(endReason);
      } else if (msg.event === "reset") {
        this.h.onReset?.();
      } else {
        let data: unknown = msg.data;
        try {
          data = msg.data === "" ? undefined : JSON.parse(msg.data);
        } catch {
          /* keep the text */
        }
        this.h.onEvent?.({ id: msg.id ?? "", event: msg.event, data } as LiveEvent);
      }
    }
    return endReason;
  }
}

// Kept so the generated stream operation stays referenced: a document change to the
// route (a renamed path) fails the type-check here.
export type StreamOperation = StreamOp;

function parseReason(data: string): EndReason {
  try {
    const j = JSON.parse(data) as { reason?: unknown };
    if (j && typeof j.reason === "string") return j.reason as EndReason;
  } catch {
    /* plain text */
  }
  return data.trim() as EndReason;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export interface SSEMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/** Parse a text/event-stream body (the WHATWG rules: fields, comments, blank-line dispatch). */
export async function* parseSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEMessage> {
  const decoder = new TextDecoder();
  let buf = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let sawField = false;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        // a CR at the end of what arrived may be the first half of a CRLF: wait for more
        if (buf[nl] === "\r" && nl === buf.length - 1) break;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf[nl] === "\r" && buf[nl + 1] === "\n" ? 2 : 1));
        if (line === "") {
          if (sawField) yield { event: event || "message", data: data.join("\n"), id };
          event = "";
          data = [];
          sawField = false;
          continue;
        }
        if (line.startsWith(":")) continue; // comment (heartbeat)
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "event") (event = val), (sawField = true);
        else if (field === "data") data.push(val), (sawField = true);
        else if (field === "id") (id = val), (sawField = true);
      }
    }
  } finally {
    // left early (the consumer stopped, or a read failed): nobody reads the rest
    if (finished) reader.releaseLock();
    else void reader.cancel().catch(() => {});
  }
}
