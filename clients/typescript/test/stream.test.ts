// The stream's reconnection rules, on a fake fetch (no server).
import { test } from "node:test";
import assert from "node:assert/strict";
import { TandemClient, TandemError, type LiveEvent } from "@tandem/client";

function sse(text: string, status = 200): Response {
  return new Response(text, { status, headers: { "Content-Type": "text/event-stream" } });
}

function fakeServer(answers: Array<() => Response | Promise<Response>>) {
  const seen: Array<{ url: string; headers: Headers }> = [];
  const fetchImpl = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    seen.push({ url: String(input), headers: new Headers(init?.headers) });
    const next = answers.shift();
    if (!next) return new Promise<Response>(() => {}); // hang until aborted
    return next();
  }) as typeof fetch;
  return { seen, fetchImpl };
}

test("shutdown: reconnects with Last-Event-ID and the token", async () => {
  const { seen, fetchImpl } = fakeServer([
    () => sse('id: 5\nevent: message.sent\ndata: {"id":"m1"}\n\nevent: end\ndata: {"reason":"shutdown"}\n\n'),
    () => sse('id: 6\nevent: message.sent\ndata: {"id":"m2"}\n\nevent: end\ndata: {"reason":"revoked"}\n\n'),
  ]);
  const c = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const events: LiveEvent[] = [];
  const ends: string[] = [];
  const s = c.stream({ onEvent: (e) => events.push(e), onEnd: (r) => ends.push(r) }, { userId: "u1", retryMs: 5 });
  assert.deepEqual(await s.done, { kind: "end", reason: "revoked" });
  assert.deepEqual(events.map((e) => [e.id, e.event, e.data]), [
    ["5", "message.sent", { id: "m1" }],
    ["6", "message.sent", { id: "m2" }],
  ]);
  assert.deepEqual(ends, ["shutdown", "revoked"]);
  assert.equal(seen.length, 2);
  assert.equal(seen[0]!.url, "http://x/api/users/user/u1/stream");
  assert.equal(seen[0]!.headers.get("Authorization"), "Bearer T");
  assert.equal(seen[0]!.headers.get("Last-Event-ID"), null);
  assert.equal(seen[1]!.headers.get("Last-Event-ID"), "5");
});

test("a dropped connection and a 503 are retried; reset is surfaced", async () => {
  const { seen, fetchImpl } = fakeServer([
    () => sse("id: 1\nevent: pairing.changed\ndata: {}\n\n"), // body ends without `end`
    () => new Response('{"success":false,"error":"unavailable","message":"busy","code":"unavailable"}', { status: 503 }),
    () => sse('event: reset\ndata: {}\n\nevent: end\ndata: {"reason":"expired"}\n\n'),
  ]);
  const c = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  let resets = 0;
  const errors: unknown[] = [];
  const s = c.stream({ onReset: () => resets++, onError: (e) => errors.push(e) }, { userId: "u1", retryMs: 5 });
  assert.deepEqual(await s.done, { kind: "end", reason: "expired" });
  assert.equal(resets, 1);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof TandemError && errors[0].status === 503 && errors[0].code === "unavailable");
  assert.equal(seen[1]!.headers.get("Last-Event-ID"), "1");
  assert.equal(seen[2]!.headers.get("Last-Event-ID"), "1");
});

test("401 is final; close() ends a waiting stream", async () => {
  const { fetchImpl } = fakeServer([
    () => new Response('{"success":false,"error":"unauthorized","message":"no","code":"unauthorized"}', { status: 401 }),
  ]);
  const c = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const s = c.stream({}, { userId: "u1", retryMs: 5 });
  const done = await s.done;
  assert.equal(done.kind, "error");
  assert.ok(done.kind === "error" && done.error instanceof TandemError && done.error.status === 401);

  const hang = fakeServer([]);
  const c2 = new TandemClient({ baseUrl: "http://x", token: "T", fetch: hang.fetchImpl });
  const s2 = c2.stream({}, { userId: "u1" });
  setTimeout(() => s2.close(), 20);
  // the fake fetch ignores the abort signal, so close() must not depend on fetch settling
  const r = await Promise.race([s2.done, new Promise((r) => setTimeout(() => r("timeout"), 500))]);
  assert.deepEqual(r, { kind: "closed" });
});

test("close() in a handler: the rest of the read, reset and end are not delivered", async () => {
  const { seen, fetchImpl } = fakeServer([
    () =>
      sse(
        'id: 1\nevent: message.sent\ndata: {"id":"m1"}\n\nid: 2\nevent: message.sent\ndata: {"id":"m2"}\n\n' +
          'event: reset\ndata: {}\n\nevent: end\ndata: {"reason":"shutdown"}\n\n',
      ),
  ]);
  const c = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const calls: string[] = [];
  const s = c.stream(
    {
      onOpen: () => calls.push("open"),
      onEvent: (e) => {
        calls.push(`event ${e.id}`);
        s.close();
      },
      onReset: () => calls.push("reset"),
      onEnd: (r) => calls.push(`end ${r}`),
      onError: () => calls.push("error"),
    },
    { userId: "u1", retryMs: 1 },
  );
  assert.deepEqual(await s.done, { kind: "closed" });
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(calls, ["open", "event 1"]);
  assert.equal(s.lastEventId, "1");
  assert.equal(seen.length, 1, "no reconnection after close()");
});

test("close() before fetch answers: no onOpen, no event, no reconnection", async () => {
  let answer!: (r: Response) => void;
  const { seen, fetchImpl } = fakeServer([
    // a fetch that ignores the abort signal and answers after close()
    () => new Promise<Response>((r) => (answer = r)),
  ]);
  const c = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const calls: string[] = [];
  const s = c.stream(
    {
      onOpen: () => calls.push("open"),
      onEvent: (e) => calls.push(`event ${e.id}`),
      onEnd: (r) => calls.push(`end ${r}`),
      onError: () => calls.push("error"),
    },
    { userId: "u1", retryMs: 1 },
  );
  await new Promise((r) => setTimeout(r, 10));
  s.close();
  answer(sse('id: 1\nevent: message.sent\ndata: {"id":"m1"}\n\nevent: end\ndata: {"reason":"shutdown"}\n\n'));
  assert.deepEqual(await s.done, { kind: "closed" });
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(calls, []);
  assert.equal(seen.length, 1);
});

test("close() in onEnd while waiting to reconnect: no further connection", async () => {
  const { seen, fetchImpl } = fakeServer([
    () => sse('event: end\ndata: {"reason":"shutdown"}\n\n'),
    () => sse('id: 9\nevent: message.sent\ndata: {"id":"m9"}\n\n'),
  ]);
  const c = new TandemClient({ baseUrl: "http://x", token: "T", fetch: fetchImpl });
  const calls: string[] = [];
  const s = c.stream(
    {
      onOpen: () => calls.push("open"),
      onEvent: (e) => calls.push(`event ${e.id}`),
      onEnd: (r) => {
        calls.push(`end ${r}`);
        setTimeout(() => s.close(), 5); // during the retry delay
      },
    },
    { userId: "u1", retryMs: 40 },
  );
  assert.deepEqual(await s.done, { kind: "closed" });
  await new Promise((r) => setTimeout(r, 80));
  assert.deepEqual(calls, ["open", "end shutdown"]);
  assert.equal(seen.length, 1);
});
