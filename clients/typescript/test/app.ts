// An app's view of the package, checked by the compiler only (scripts/client-test.sh
// type-checks it in a fresh app that installed the packed tarball, under strict, with
// skipLibCheck as apps have it). Every line below fails to compile when the shipped
// declarations lose the generated types (a missing schema turns them into `any`, and live
// events collapse to `{id}`). Nothing here runs.
import {
  TandemClient,
  TandemError,
  thumbnailUrl,
  type CalendarEvent,
  type EndReason,
  type ErrorCode,
  type LiveEvent,
  type LiveEventData,
  type LiveEventType,
  type LiveStream,
  type Message,
  type StreamClose,
  type components,
  type paths,
} from "@tandem/client";

/** true when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type IsAny<T> = 0 extends 1 & T ? true : false;
function assertType<T extends true>(): void {}

// The generated types arrive: not `any`, with the document's fields.
assertType<Equal<IsAny<paths>, false>>();
assertType<Equal<IsAny<components>, false>>();
assertType<Equal<Message, components["schemas"]["Message"]>>();
assertType<Equal<keyof Message, "author" | "body" | "createdAt" | "id">>();
assertType<Equal<Message["body"], string>>();
assertType<Equal<CalendarEvent["title"], string>>();

// Live events: a union discriminated on `event`, each with its REST read's data.
assertType<Equal<IsAny<LiveEvent>, false>>();
assertType<Equal<Extract<LiveEvent, { event: "message.sent" }>["data"], Message>>();
assertType<Equal<LiveEventData<"message.sent">, Message>>();
assertType<Equal<LiveEventData<"event.created">, CalendarEvent>>();
assertType<Equal<LiveEventData<"memory.deleted">, components["schemas"]["LiveDeleted"]>>();
assertType<Equal<LiveEvent["id"], string>>();
assertType<Equal<"message.sent" extends LiveEventType ? true : false, true>>();
assertType<Equal<string extends LiveEventType ? true : false, false>>();
// reset and end go to onReset and onEnd, never to onEvent
assertType<Equal<Extract<LiveEventType, "reset" | "end">, never>>();
assertType<Equal<EndReason, "revoked" | "expired" | "replaced" | "lagging" | "shutdown">>();

// Error codes: the document's enum, not a plain string.
assertType<Equal<string extends ErrorCode ? true : false, false>>();
assertType<Equal<"already_paired" extends ErrorCode ? true : false, true>>();

export async function app(baseUrl: string, apiKey: string): Promise<void> {
  const tandem = new TandemClient({ baseUrl, apiKey, onToken: (t: string | undefined) => void t });
  const started = await tandem.signUp("ann@example.com", "correct-horse");
  const userId: string | undefined = started.userId;
  await tandem.verify(userId!, "123456");

  const sent = await tandem.sendMessage("hello");
  const sentId: string = sent.id;
  const messages = await tandem.listMessages({ limit: 50 });
  const firstBody: string | undefined = messages[0]?.body; // noUncheckedIndexedAccess
  // @ts-expect-error: a message has no title
  void messages[0]?.title;

  const ev = await tandem.createEvent({ title: "Dinner", startDate: "2027-02-14", startTime: "19:30" });
  const evId: string = ev.id;
  // @ts-expect-error: title is a string
  void tandem.createEvent({ title: 1, startDate: "2027-02-14" });

  const up = await tandem.uploadImages([new Blob([new Uint8Array([1])], { type: "image/png" })]);
  const url: string = thumbnailUrl(up.files[0]!.data.url, 320);
  // @ts-expect-error: widths are 160, 320, 640, 1280
  thumbnailUrl(url, 300);

  // tandem.api: every route of the document, typed.
  const home = await tandem.api.GET("/api/users/user/{userId}/home", {
    params: { path: { userId: tandem.userId! } },
  });
  assertType<Equal<IsAny<typeof home.data>, false>>();
  // @ts-expect-error: not a route of the document
  void tandem.api.GET("/api/no-such-route");

  try {
    await tandem.submitPairingCode("ABCDEF");
  } catch (e) {
    if (e instanceof TandemError) {
      const status: number = e.status;
      switch (e.code) {
        case "already_paired":
        case "invalid_pairing_code":
          break;
        // @ts-expect-error: not one of the document's codes
        case "no_such_code":
          break;
      }
      void status;
    }
  }

  const stream: LiveStream = tandem.stream({
    onOpen: () => {},
    onEvent: (e) => {
      if (e.event === "message.sent") {
        const body: string = e.data.body;
        const author: string = e.data.author;
        // @ts-expect-error: a message has no title
        void e.data.title;
        void [body, author];
      } else if (e.event === "event.created" || e.event === "event.updated") {
        const title: string = e.data.title;
        void title;
      }
      // @ts-expect-error: not an event type of the document
      if (e.event === "message.nope") return;
      const id: string = e.id;
      void id;
    },
    onEnd: (reason) => {
      // @ts-expect-error: not an end reason of the document
      if (reason === "bored") return;
    },
    onReset: () => {},
    onError: (err: unknown) => void err,
  });
  const how: StreamClose = await stream.done;
  if (how.kind === "end") {
    const reason: EndReason = how.reason;
    void reason;
  }
  stream.close();
  const closed: boolean = stream.closed;
  void [userId, sentId, firstBody, evId, url, closed];
  await tandem.logout();
}
