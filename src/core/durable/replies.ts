/**
 * Reply channels of runs begun with a reply (Go `BeginRunWithReply`, runtime-spec §1.7, §4.4): the
 * origin opens a subject and waits; the run's hop to its reply target is delivered there instead
 * of to a handler. On JetStream the subject is a core NATS inbox of the origin's pod (the transport
 * opens it); without JetStream every hop of a run stays in this process, so {@link LocalReplies}
 * hands the reply over in memory.
 */
import { fail, ok, type Result } from "../result.ts";
import { RunReplyTimeoutError } from "./errors.ts";
import { startTimer } from "../timer.ts";

/** An open reply subject. */
export interface ReplyInbox {
  /** The subject to put in the run's `replySubject`. */
  readonly subject: string;
  /**
   * Resolves with the reply hop's payload (`ok(bytes)` off a wire, `ok(value)` in process), or
   * `fail(RunReplyTimeoutError)` after the timeout. Never rejects.
   */
  readonly reply: Promise<Result>;
  /** Stops waiting (idempotent); an unresolved reply resolves as a timeout. */
  close(): void;
}

/** What opens reply subjects: the JetStream transport, or {@link LocalReplies}. */
export interface ReplyChannels {
  /** Opens a fresh subject that waits up to `timeoutMs` for one reply. */
  openReply(timeoutMs: number): ReplyInbox;
}

/** In-process reply subjects (no JetStream): `deliver` hands a reply hop's data to its waiter. */
export class LocalReplies implements ReplyChannels {
  readonly #waiting = new Map<string, (r: Result) => void>();

  openReply(timeoutMs: number): ReplyInbox {
    const subject = `_INBOX.tinyhost.${crypto.randomUUID()}`;
    const { promise, resolve } = Promise.withResolvers<Result>();
    const done = (r: Result) => {
      timer.cancel();
      this.#waiting.delete(subject);
      resolve(r);
    };
    const timer = startTimer(timeoutMs, () => done(fail(new RunReplyTimeoutError(subject, timeoutMs))));
    this.#waiting.set(subject, (r) => done(r));
    return { subject, reply: promise, close: () => done(fail(new RunReplyTimeoutError(subject, timeoutMs))) };
  }

  /** Delivers `data` to the waiter of `subject`; false when nobody waits there (the reply is dropped, as on NATS). */
  deliver(subject: string, data: unknown): boolean {
    const w = this.#waiting.get(subject);
    if (!w) return false;
    w(ok(data));
    return true;
  }
}
