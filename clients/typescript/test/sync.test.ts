// The sync helper on a fake server (no network): catch-up pages, the stream's change
// events resumed from the cursor, reset and 410 cursor_expired, a failed apply retried.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TandemClient, sync, type Change } from "@tandem/client";

type Answer = () => Response | Promise<Response>;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}
function sse(text: string): Response {
  return new Response(text, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}
function feed(changes: Change[], cursor: string, hasMore = false): Answer {
  return () => json({ success: true, changes, cursor, hasMore });
}
const expired: Answer = () =>
  json({ success: false, error: "gone", code: "cursor_expired", message: "this cursor has expired" }, 410);

/** A fake server: answers of /changes and of /stream, each in turn; a stream with no answer left hangs. */
function fakeServer(changes: Answer[], streams: Answer[]) {
  const seen: string[] = [];
  const fetchImpl = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(req.url);
    if (url.pathname.endsWith("/changes")) {
      seen.push(`changes ${url.searchParams.get("since") ?? "-"}`);
      const next = changes.shift();
      return next ? next() : json({ success: false, error: "x", code: "internal_error", message: "x" }, 500);
    }
    seen.push(`stream ${new Headers(init?.headers).get("Last-Event-ID") ?? "-"}`);
    const next = streams.shift();
    if (!next) return new Promise<Response>(() => {}); // hang until the sync closes
    return next();
  }) as typeof fetch;
  return { seen, fetchImpl };
}

const put = (id: string, body: string): Change => ({
  kind: "message",
  id,
  op: "put",
  data: { id, body, author: "u2", createdAt: 1 },
});

function changeEvent(cursor: string, c: Change): string {
  return `id: ${cursor}\nevent: change\ndata: ${JSON.stringify(c)}\n\n`;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), "condition never met");
}

test("a stored cursor: catch up page by page, then the stream from the last cursor, reconnecting", async () => {
  const { seen, fetchImpl } = fakeServer(
    [feed([put("m1", "one"), put("m2", "two")], "c2", true), feed([put("m3", "three")], "c3")],
    [
      () => sse(changeEvent("c4", put("m4", "four")) + 'id: r1\nevent: message.sent\ndata: {"id":"m4"}\n\n'), // then drops
      () => sse(changeEvent("c5", { kind: "message", id: "m1", op: "delete" })),
    ],
  );
  const client = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const applied: string[] = [];
  const saved: string[] = [];
  const hints: string[] = [];
  let refetches = 0;
  const s = sync(client, {
    userId: "u1",
    load: () => "c0",
    save: (c) => void saved.push(c),
    apply: (c) => void applied.push(`${c.op} ${c.id}`),
    refetch: () => void refetches++,
    onEvent: (e) => hints.push(e.event),
    pageSize: 2,
    retryMs: 1,
  });
  await until(() => applied.length === 5);
  s.close();
  assert.deepEqual(await s.done, { kind: "closed" });
  assert.deepEqual(applied, ["put m1", "put m2", "put m3", "put m4", "delete m1"]);
  assert.deepEqual(saved, ["c2", "c3", "c4", "c5"]);
  assert.equal(s.cursor, "c5");
  assert.deepEqual(hints, ["message.sent"]);
  assert.equal(refetches, 0);
  // the reconnection resumes after the last change applied, not after the message.sent's id
  assert.deepEqual(seen.slice(0, 5), ["changes c0", "changes c2", "stream c3", "stream c4", "stream c5"]);
});

test("no cursor: take one, refetch, then follow; a 410 refetches from a fresh cursor", async () => {
  const { seen, fetchImpl } = fakeServer(
    [feed([], "fresh1"), feed([], "fresh1"), expired, feed([], "fresh2"), feed([], "fresh2")],
    [],
  );
  const client = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const saved: string[] = [];
  let refetches = 0;
  const first = sync(client, { userId: "u1", load: () => undefined, save: (c) => void saved.push(c), apply: () => {}, refetch: () => void refetches++, retryMs: 1 });
  await until(() => seen.includes("stream fresh1"));
  first.close();
  assert.equal(refetches, 1);
  assert.deepEqual(saved, ["fresh1", "fresh1"]);

  const second = sync(client, { userId: "u1", load: () => "old", save: (c) => void saved.push(c), apply: () => {}, refetch: () => void refetches++, retryMs: 1 });
  await until(() => seen.includes("stream fresh2"));
  second.close();
  assert.equal(refetches, 2);
  assert.deepEqual(seen, ["changes -", "changes fresh1", "stream fresh1", "changes old", "changes -", "changes fresh2", "stream fresh2"]);
});

test("reset on the stream: refetch and go on from a fresh cursor", async () => {
  const { seen, fetchImpl } = fakeServer(
    [feed([], "c1"), feed([], "fresh")],
    [() => sse("event: reset\ndata: {}\n\n" + changeEvent("c9", put("m9", "nine")))],
  );
  const client = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const order: string[] = [];
  const s = sync(client, {
    userId: "u1",
    load: () => "c1",
    save: (c) => void order.push(`save ${c}`),
    apply: (c) => void order.push(`apply ${c.id}`),
    refetch: async () => {
      await new Promise((r) => setTimeout(r, 10)); // a slow refetch: the change waits for it
      order.push("refetch");
    },
    retryMs: 1,
  });
  await until(() => order.includes("save c9"));
  s.close();
  assert.deepEqual(order, ["save c1", "refetch", "save fresh", "apply m9", "save c9"]);
  assert.deepEqual(seen.slice(0, 3), ["changes c1", "stream c1", "changes -"]);
});

test("a failed apply is not skipped: the stream closes and the sync catches up from the last cursor", async () => {
  const { seen, fetchImpl } = fakeServer(
    [feed([], "c1"), feed([put("m2", "two")], "c2")],
    [() => sse(changeEvent("c2", put("m2", "two")))],
  );
  const client = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const applied: string[] = [];
  const errors: unknown[] = [];
  let fail = true;
  const s = sync(client, {
    userId: "u1",
    load: () => "c1",
    save: () => {},
    apply: (c) => {
      if (fail) {
        fail = false;
        throw new Error("disk full");
      }
      applied.push(c.id);
    },
    refetch: () => {},
    onError: (e) => errors.push(e),
    retryMs: 1,
  });
  await until(() => seen.includes("stream c2"));
  s.close();
  assert.deepEqual(applied, ["m2"]);
  assert.equal((errors[0] as Error).message, "disk full");
  assert.deepEqual(seen, ["changes c1", "stream c1", "changes c1", "stream c2"]);
});

test("a 401 stops the sync", async () => {
  const { fetchImpl } = fakeServer(
    [() => json({ success: false, error: "unauthorized", code: "unauthorized", message: "no" }, 401)],
    [],
  );
  const client = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const s = sync(client, { userId: "u1", load: () => "c1", save: () => {}, apply: () => {}, refetch: () => {}, retryMs: 1 });
  const done = await s.done;
  assert.equal(done.kind, "error");
});
