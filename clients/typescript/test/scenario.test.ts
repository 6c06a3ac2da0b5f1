// Scenario tests against a real `tandem serve` (scripts/client-test.sh starts one on the
// memory profile with TANDEM_MAIL=log and passes TANDEM_URL, TANDEM_LOG, TANDEM_API_KEY).
// They import the package by its name: the script runs them in a fresh app that installed
// the packed tarball.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { deflateSync } from "node:zlib";
import {
  TandemClient,
  TandemError,
  parseSSE,
  thumbnailUrl,
  type LiveEvent,
  type LiveStream,
  type StreamClose,
} from "@tandem/client";

const BASE = process.env.TANDEM_URL ?? "http://127.0.0.1:18190";
const LOG = process.env.TANDEM_LOG ?? "";
const API_KEY = process.env.TANDEM_API_KEY ?? "dev-key";
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const PASSWORD = "correct-horse-battery";

function newClient(): TandemClient {
  return new TandemClient({ baseUrl: BASE, apiKey: API_KEY });
}

/** The last verification code mailed to email, read from the server's log. */
async function mailedCode(email: string): Promise<string> {
  assert.ok(LOG, "TANDEM_LOG must name the server's log");
  for (let i = 0; i < 80; i++) {
    const text = await readFile(LOG, "utf8");
    let code: string | undefined;
    for (const line of text.split("\n")) {
      if (!line.includes(`"to":"${email}"`)) continue;
      const m = /verification code is (\d{6})/.exec(line);
      if (m) code = m[1];
    }
    if (code) return code;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no verification code for ${email} in ${LOG}`);
}

async function signUpVerified(name: string): Promise<{ c: TandemClient; id: string; email: string }> {
  const c = newClient();
  const email = `${name}-${run}@example.com`;
  const started = await c.signUp(email, PASSWORD);
  assert.equal(started.code, "verification_required");
  assert.ok(started.userId);
  assert.equal(c.token, undefined);
  const verified = await c.verify(started.userId, await mailedCode(email));
  assert.equal(verified.code, "verification_success");
  assert.ok(c.token, "verify keeps the token");
  assert.equal(c.userId, started.userId);
  return { c, id: started.userId, email };
}

/** Resolves with the first event matching pred, or rejects after ms. */
function waitFor(events: LiveEvent[], pred: (e: LiveEvent) => boolean, ms = 5000): Promise<LiveEvent> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const e = events.find(pred);
      if (e) return resolve(e);
      if (Date.now() - start > ms) {
        return reject(new Error(`no matching event in ${ms} ms; got ${JSON.stringify(events.map((x) => x.event))}`));
      }
      setTimeout(tick, 25);
    };
    tick();
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);
}

// A real PNG (w × h, opaque RGB gradient), so the server decodes and thumbnails it.
function png(w: number, h: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1);
    for (let x = 0; x < w; x++) {
      raw[row + 1 + x * 3] = (x * 255) / w;
      raw[row + 2 + x * 3] = (y * 255) / h;
      raw[row + 3 + x * 3] = 128;
    }
  }
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(raw)),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

test("parseSSE: fields, comments, multi-line data, CRLF, split chunks", async () => {
  const text = ": heartbeat\r\nid: 7\r\nevent: message.sent\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: end\ndata: {\"reason\":\"revoked\"}\n\n";
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      for (let i = 0; i < bytes.length; i += 5) ctl.enqueue(bytes.slice(i, i + 5));
      ctl.close();
    },
  });
  const got = [];
  for await (const m of parseSSE(body)) got.push(m);
  assert.deepEqual(got, [
    { event: "message.sent", data: '{"a":\n1}', id: "7" },
    { event: "end", data: '{"reason":"revoked"}', id: "7" },
  ]);
});

test("thumbnailUrl adds ?w=", () => {
  assert.equal(thumbnailUrl("http://h/files/u/a/b.png", 320), "http://h/files/u/a/b.png?w=320");
});

test("the couple's scenario: sign-up, login, pairing, messages, events, upload, stream, logout", async (t) => {
  const ann = await signUpVerified("ann");
  const bob = await signUpVerified("bob");

  await t.test("errors carry status and code", async () => {
    const c = newClient();
    await assert.rejects(c.login(ann.email, "wrong-password-123"), (e: unknown) => {
      assert.ok(e instanceof TandemError);
      assert.equal(e.status, 401);
      assert.equal(e.code, "invalid_credentials");
      return true;
    });
    // messages need the service key as well as the token
    const noKey = new TandemClient({ baseUrl: BASE, token: ann.c.token! });
    await assert.rejects(
      noKey.sendMessage("hi"),
      (e: unknown) => e instanceof TandemError && e.status === 401 && e.code === "invalid_api_key",
    );
  });

  await t.test("login answers a fresh token that works", async () => {
    const again = newClient();
    const r = await again.login(ann.email, PASSWORD);
    assert.equal(r.userId, ann.id);
    assert.ok(again.token && again.token !== ann.c.token);
    const p = await again.pairing();
    assert.equal(p.state, "unpaired");
    await again.logout();
    assert.equal(again.token, undefined);
  });

  await t.test("pairing both ways", async () => {
    const annCode = await ann.c.generatePairingCode();
    const bobCode = await bob.c.generatePairingCode();
    assert.match(annCode.code, /^[A-Z2-9]{6}$/);
    const pending = await bob.c.submitPairingCode(annCode.code);
    assert.equal("status" in pending ? pending.status : undefined, "pending");
    const annView = await ann.c.pairing();
    assert.equal(annView.incomingFrom, bob.id);
    assert.equal(annView.actionRequired, true);
    const connected = await ann.c.submitPairingCode(bobCode.code);
    assert.equal("state" in connected ? connected.state : undefined, "connected");
    assert.equal((await bob.c.pairing()).partnerId, ann.id);
    // a wrong code now: already paired (409)
    await assert.rejects(
      bob.c.submitPairingCode("AAAAAA"),
      (e: unknown) => e instanceof TandemError && e.status === 409 && e.code === "already_paired",
    );
  });

  // Bob's live stream, open from here on.
  const events: LiveEvent[] = [];
  const ends: string[] = [];
  let opened = 0;
  const stream: LiveStream = bob.c.stream(
    { onEvent: (e) => events.push(e), onEnd: (r) => ends.push(r), onOpen: () => opened++ },
    { retryMs: 200 },
  );
  await withTimeout(
    (async () => {
      while (opened === 0) await new Promise((r) => setTimeout(r, 20));
    })(),
    5000,
    "stream open",
  );

  await t.test("a message reaches both and the partner's stream", async () => {
    const sent = await ann.c.sendMessage("  hello from ann  ");
    assert.ok(sent.id);
    const live = await waitFor(events, (e) => e.event === "message.sent");
    assert.equal(live.id !== "", true);
    assert.ok(live.event === "message.sent");
    // typed by the document: data is a Message
    assert.deepEqual(live.data, { id: sent.id, body: "hello from ann", author: ann.id, createdAt: live.data.createdAt });
    assert.equal(typeof live.data.createdAt, "number");
    const list = await bob.c.listMessages();
    assert.equal(list[0]?.id, sent.id);
    assert.equal(list[0]?.body, "hello from ann");
  });

  await t.test("an event: created, read by the partner, announced on the stream", async () => {
    const ev = await ann.c.createEvent({ title: "Dinner", startDate: "2027-02-14", startTime: "19:30" });
    assert.equal(ev.title, "Dinner");
    assert.ok(ev.id);
    // the partner reads it by id under his own path, marked isPartnerEvent
    const seen = await bob.c.getEvent(ev.id);
    assert.equal(seen.id, ev.id);
    assert.equal((seen as { isPartnerEvent?: boolean }).isPartnerEvent, true);
    const live = await waitFor(events, (e) => e.event === "event.created");
    assert.ok(live.event === "event.created");
    assert.equal(live.data.id, ev.id);
    assert.equal(live.data.title, "Dinner");
    assert.equal((await ann.c.listEvents()).some((x) => x.id === ev.id), true);
  });

  await t.test("an upload and its thumbnail", async () => {
    const up = await ann.c.uploadImages([{ data: png(400, 300), name: "g.png", type: "image/png" }]);
    assert.equal(up.files.length, 1);
    const url = up.files[0]!.data.url;
    assert.ok(url.startsWith(`${BASE}/files/u/${ann.id}/`), url);
    assert.ok(up.groupId);
    const file = await ann.c.fetchFile(url);
    assert.equal(file.headers.get("content-type"), "image/png");
    const orig = new Uint8Array(await file.arrayBuffer());
    assert.deepEqual([...orig.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const thumb = await bob.c.fetchFile(url, 160); // no token needed: the url is the credential
    assert.match(thumb.headers.get("content-type") ?? "", /^image\//);
    assert.ok((await thumb.arrayBuffer()).byteLength > 0);
    await assert.rejects(
      fetch(`${url}?w=123`).then(async (r) => {
        if (!r.ok) throw r.status;
      }),
      (s: unknown) => s === 400,
    );
  });

  await t.test("reconnecting with Last-Event-ID writes the change that was missed", async () => {
    const last = stream.lastEventId;
    assert.ok(last, "the stream saw ids");
    const missed: LiveEvent[] = [];
    const sent = await ann.c.sendMessage("while you were away");
    const again = bob.c.stream({ onEvent: (e) => missed.push(e) }, { lastEventId: last, reconnect: false });
    const e = await waitFor(missed, (x) => x.event === "change" && x.data.kind === "message" && x.data.id === sent.id);
    assert.ok(e);
    again.close();
    assert.deepEqual(await withTimeout(again.done, 3000, "close"), { kind: "closed" });
  });

  // Three messages Bob's open stream has seen: a stream resuming before them gets their
  // changes from the feed in one write, so one read holds them all.
  const before = stream.lastEventId;
  assert.ok(before, "the stream saw ids");
  const three: string[] = [];
  for (const n of [1, 2, 3]) three.push((await ann.c.sendMessage(`replayed ${n}`)).id);
  await waitFor(events, (e) => e.event === "message.sent" && e.data.id === three[2]);

  /** Opens Bob's stream from `before`; `stopIn` picks the handler that calls close(). */
  async function closeFrom(stopIn: "onOpen" | "onEvent"): Promise<string[]> {
    const calls: string[] = [];
    const s: LiveStream = bob.c.stream(
      {
        onOpen: () => {
          calls.push("open");
          if (stopIn === "onOpen") s.close();
        },
        onEvent: (e) => {
          calls.push(
            e.event === "change" && e.data.kind === "message" && e.data.op === "put"
              ? `message ${(e.data.data as { body: string }).body}`
              : e.event,
          );
          if (stopIn === "onEvent") s.close();
        },
        onReset: () => calls.push("reset"),
        onEnd: (r) => calls.push(`end ${r}`),
        onError: (err) => calls.push(`error ${String(err)}`),
      },
      { lastEventId: before, retryMs: 50 },
    );
    assert.deepEqual(await withTimeout(s.done, 5000, `close in ${stopIn}`), { kind: "closed" });
    assert.equal(s.closed, true);
    return calls;
  }

  await t.test("close() in onEvent: the events of the same read are not delivered, nor anything later", async () => {
    const calls = await closeFrom("onEvent");
    // a live message after the close, which Bob's other stream receives
    const later = await ann.c.sendMessage("after the close");
    await waitFor(events, (e) => e.event === "message.sent" && e.data.id === later.id);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(calls, ["open", "message replayed 1"]);
  });

  await t.test("close() in onOpen: no event at all, though the changes were on their way", async () => {
    const calls = await closeFrom("onOpen");
    const later = await ann.c.sendMessage("after the second close");
    await waitFor(events, (e) => e.event === "message.sent" && e.data.id === later.id);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(calls, ["open"]);
  });

  await t.test("logout ends the stream with reason revoked", async () => {
    await bob.c.logout();
    const done: StreamClose = await withTimeout(stream.done, 5000, "stream end after logout");
    assert.deepEqual(done, { kind: "end", reason: "revoked" });
    assert.deepEqual(ends, ["revoked"]);
    // the old token no longer works
    const stale = new TandemClient({ baseUrl: BASE, token: "x".repeat(43) });
    await assert.rejects(stale.pairing(bob.id), (e: unknown) => e instanceof TandemError && e.status === 401);
  });

  stream.close();
});
