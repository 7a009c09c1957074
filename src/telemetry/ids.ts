/**
 * Trace/span ids and span names shaped like the Go runtime's (runtime-spec §9.1, §2.8).
 * - trace id: 8 bytes of unix time in ns (big-endian) + 8 random bytes;
 * - span id: 4 bytes of unix time in ms (low 32 bits, big-endian) + 4 random bytes;
 * so a collector that reads the time prefix (the platform's does, as Uptrace's) orders them the same.
 * - hop span names are UUID v1 strings (Go `uuid.NewUUID()` in runner.go).
 */
import { randomBytes } from "node:crypto";
import type { IdGenerator } from "@opentelemetry/sdk-trace";

/** Random bytes drawn in blocks: one syscall per 4 KiB instead of one per id. */
let pool = randomBytes(4096);
let poolAt = 0;

function random(n: number): Buffer {
  if (poolAt + n > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  const b = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return b;
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
}

/** Go-shaped ids (runtime-spec §9.1 "custom IDs"). Hex strings as the OTel JS SDK expects. */
export class TimeOrderedIdGenerator implements IdGenerator {
  /** 32 hex chars: unix ns (8 bytes BE) + 8 random bytes. */
  generateTraceId(): string {
    const b = Buffer.allocUnsafe(16);
    b.writeBigUInt64BE(nowNs(), 0);
    random(8).copy(b, 8);
    return b.toString("hex");
  }
  /** 16 hex chars: unix ms low 32 bits (BE) + 4 random bytes. */
  generateSpanId(): string {
    const b = Buffer.allocUnsafe(8);
    b.writeUInt32BE(Date.now() % 0x1_0000_0000, 0);
    random(4).copy(b, 4);
    return b.toString("hex");
  }
}

/** 100-ns intervals between the Gregorian epoch (1582-10-15) and the unix epoch (RFC 9562 §5.1). */
const GREGORIAN_OFFSET = 122_192_928_000_000_000n;
let lastTs = 0n;
const clockSeq = random(2).readUInt16BE(0) & 0x3fff;
/** Node id: random, multicast bit set (RFC 9562 §6.10: not a real MAC). */
const nodeId = Buffer.from(random(6));
nodeId[0]! |= 0x01;

/** A UUID version 1 string (RFC 9562 §5.1), used as hop span name like Go's runner. */
export function uuidV1(): string {
  let ts = BigInt(Date.now()) * 10_000n + GREGORIAN_OFFSET;
  if (ts <= lastTs) ts = lastTs + 1n; // monotonic: several names within one ms stay distinct
  lastTs = ts;
  const low = Number(ts & 0xffffffffn);
  const mid = Number((ts >> 32n) & 0xffffn);
  const hi = Number((ts >> 48n) & 0x0fffn) | 0x1000;
  const b = Buffer.allocUnsafe(16);
  b.writeUInt32BE(low, 0);
  b.writeUInt16BE(mid, 4);
  b.writeUInt16BE(hi, 6);
  b.writeUInt16BE(clockSeq | 0x8000, 8);
  nodeId.copy(b, 10);
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
