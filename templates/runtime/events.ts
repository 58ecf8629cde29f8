/**
 * Resumable 2025 streams (Streamable HTTP, "Resumability and Redelivery"): each message a session's SSE stream
 * carries is kept for a while under an event id, so a client whose connection broke can GET with `Last-Event-ID`
 * and be sent what it missed on that stream, and only that. No Node modules here (web.ts runs on edge runtimes).
 *
 * The store is keyed by session: an event id is looked up among the events of the session the request belongs to,
 * never elsewhere, so another session's id (or a forged one) finds nothing. The in-memory store is the default;
 * a deployment with several instances replaces it with a shared one behind the same interface.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Where the events of every 2025 session of an endpoint are kept. Every method gets the session's id. */
export interface SessionEventStore {
  /** Keeps `message`, sent on the SDK's stream `stream` of `session`; resolves with its event id. */
  append(session: string, stream: string, message: JSONRPCMessage): Promise<string>;
  /**
   * The stream a client sending `eventId` as Last-Event-ID resumes: undefined unless it is an event of this
   * session whose stream still holds every event after it (not past a cap or the age limit). `eventId` is
   * untrusted input: any string.
   */
  streamOf(session: string, eventId: string): Promise<string | undefined>;
  /**
   * Sends, in order, every event of that stream after `eventId` (those appended meanwhile too); resolves with the
   * stream, or undefined, having sent nothing, when streamOf would say undefined.
   */
  replayAfter(
    session: string,
    eventId: string,
    send: (eventId: string, message: JSONRPCMessage) => Promise<void>,
  ): Promise<string | undefined>;
  /** Forgets a session's events: it has ended. */
  forget(session: string): Promise<void>;
}

export interface MemoryEventStoreOptions {
  /** Events kept per stream (default 1,000); past it the oldest go, and a resumption from before them is refused. */
  maxEventsPerStream?: number;
  /** Events kept for all sessions together (default 10,000); past it the oldest go, whoever's they are. */
  maxEvents?: number;
  /** Characters of JSON kept for all sessions together (default 16 Mi); past it the oldest go. */
  maxChars?: number;
  /** An event older than this is gone (default 5 minutes). */
  maxAgeMs?: number;
}

export const DEFAULT_MAX_EVENTS_PER_STREAM = 1000;
export const DEFAULT_MAX_EVENTS = 10_000;
export const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;
export const DEFAULT_EVENT_MAX_AGE_MS = 5 * 60_000;
/** A Last-Event-ID longer than this is refused before any store sees it. */
export const MAX_EVENT_ID_LENGTH = 128;

/** The memory store's ids: 128 random bits naming the stream (base64url), then the event's number in it. */
const EVENT_ID = /^([A-Za-z0-9_-]{22})\.(0|[1-9][0-9]{0,14})$/;

interface Kept {
  seq: number;
  at: number;
  json: string;
}

interface Stream {
  key: string;
  session: string;
  sdkStream: string;
  /** Events `floor`, `floor + 1`, … `next - 1`, oldest first: never a gap. */
  events: Kept[];
  floor: number;
  next: number;
  /** Its response has been sent: nothing more will be appended. */
  done: boolean;
}

/** The in-memory store: bounded by events per stream, events and characters in all, and age. */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): SessionEventStore {
  const perStream = options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const maxChars = options.maxChars ?? DEFAULT_MAX_EVENT_CHARS;
  const maxAge = options.maxAgeMs ?? DEFAULT_EVENT_MAX_AGE_MS;
  const sessions = new Map<string, Map<string, Stream>>();
  const byKey = new Map<string, Stream>();
  /** Every kept event in the order appended (so oldest first), for the caps on all and the age limit. */
  let order: { stream: Stream; seq: number }[] = [];
  let head = 0;
  let count = 0;
  let chars = 0;

  const drop = (stream: Stream, n: number) => {
    for (const e of stream.events.splice(0, n)) {
      count--;
      chars -= e.json.length;
    }
    stream.floor = stream.events[0]?.seq ?? stream.next;
    if (!stream.events.length && stream.done) remove(stream);
  };
  const remove = (stream: Stream) => {
    chars -= stream.events.reduce((n, e) => n + e.json.length, 0);
    count -= stream.events.length;
    stream.events = [];
    byKey.delete(stream.key);
    sessions.get(stream.session)?.delete(stream.sdkStream);
  };
  /** Drops the oldest events while a cap on all is passed or they are too old. */
  const prune = (now: number) => {
    while (head < order.length) {
      const { stream, seq } = order[head]!;
      const oldest = stream.events[0];
      if (!oldest || oldest.seq !== seq || byKey.get(stream.key) !== stream) {
        head++; // already gone (its stream's own cap, or its session ended)
        continue;
      }
      if (count <= maxEvents && chars <= maxChars && now - oldest.at <= maxAge) break;
      drop(stream, 1);
      head++;
    }
    if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head);
      head = 0;
    }
  };
  /** This session's stream that `eventId` names, and the event's number; undefined for anything else. */
  const find = (session: string, eventId: string): [Stream, number] | undefined => {
    const m = eventId.length <= MAX_EVENT_ID_LENGTH ? EVENT_ID.exec(eventId) : null;
    if (!m) return undefined;
    const stream = byKey.get(m[1]!);
    const seq = Number(m[2]);
    // Another session's stream is answered as if it did not exist. The client has seen `seq`: it needs every
    // event after it, and they must all still be here.
    if (!stream || stream.session !== session || seq >= stream.next || seq + 1 < stream.floor) return undefined;
    return [stream, seq];
  };

  return {
    async append(session, sdkStream, message) {
      const now = Date.now();
      let streams = sessions.get(session);
      if (!streams) sessions.set(session, (streams = new Map()));
      let stream = streams.get(sdkStream);
      if (!stream) {
        const key = randomKey();
        stream = { key, session, sdkStream, events: [], floor: 0, next: 0, done: false };
        streams.set(sdkStream, stream);
        byKey.set(key, stream);
      }
      const seq = stream.next++;
      const json = JSON.stringify(message);
      if ('id' in message && ('result' in message || 'error' in message)) stream.done = sdkStream !== STANDALONE;
      if (json.length > maxChars) {
        // Too large to keep: the stream cannot be resumed from before it.
        drop(stream, stream.events.length);
        stream.floor = stream.next;
      } else {
        stream.events.push({ seq, at: now, json });
        order.push({ stream, seq });
        count++;
        chars += json.length;
        if (stream.events.length > perStream) drop(stream, stream.events.length - perStream);
      }
      const id = `${stream.key}.${seq}`;
      prune(now);
      return id;
    },
    async streamOf(session, eventId) {
      prune(Date.now());
      return find(session, eventId)?.[0].sdkStream;
    },
    async replayAfter(session, eventId, send) {
      prune(Date.now());
      const found = find(session, eventId);
      if (!found) return undefined;
      const [stream] = found;
      // Live: events appended while this sends are sent too, so none falls between the replay and the stream.
      for (let seq = found[1] + 1; seq < stream.next; seq++) {
        const event = stream.events[seq - stream.floor];
        if (!event || event.seq !== seq) break; // dropped meanwhile (a cap): the client resumes again and is refused
        const message = JSON.parse(event.json) as JSONRPCMessage;
        // The priming event (empty data) has nothing to deliver.
        if ('jsonrpc' in message) await send(`${stream.key}.${seq}`, message);
      }
      return stream.sdkStream;
    },
    async forget(session) {
      for (const stream of sessions.get(session)?.values() ?? []) remove(stream);
      sessions.delete(session);
    },
  };
}

/** The SDK's name for a session's standalone (GET) stream, which never ends with a response. */
const STANDALONE = '_GET_stream';

function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The SDK transport's view of the store for one session (its id is known once it has initialized). */
export function sessionEventStore(store: SessionEventStore, session: () => string | undefined): EventStore {
  const sid = () => {
    const id = session();
    if (id === undefined) throw new Error('no session yet: nothing to keep events for');
    return id;
  };
  return {
    storeEvent: (stream, message) => store.append(sid(), stream, message),
    getStreamIdForEventId: (eventId) => store.streamOf(sid(), eventId),
    async replayEventsAfter(eventId, { send }) {
      const stream = await store.replayAfter(sid(), eventId, send);
      // Checked just before (streamOf): only a cap or the age limit passed in between reaches here.
      if (stream === undefined) throw new Error('the events after this Last-Event-ID are no longer kept');
      return stream;
    },
  };
}
