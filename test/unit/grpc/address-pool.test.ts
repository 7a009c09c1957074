import { describe, expect, test } from "bun:test";
import { AddressPool } from "../../../src/transport/grpc/address-pool.ts";
import { ModuleAddressUnknownError } from "../../../src/transport/grpc/errors.ts";

/** A fake connection that records whether it was closed (unit tests only). */
class FakeConn {
  closed = false;
  constructor(readonly address: string) {}
  close(): void {
    this.closed = true;
  }
}

function pool(prewarm = false) {
  const dialed: FakeConn[] = [];
  const p = new AddressPool<FakeConn>(
    (a) => {
      const c = new FakeConn(a);
      dialed.push(c);
      return c;
    },
    { prewarm },
  );
  return { p, dialed };
}

describe("address pool", () => {
  test("an unregistered module fails with '<m> module address is unknown'", () => {
    const { p } = pool();
    expect(() => p.acquire("http-module")).toThrow(ModuleAddressUnknownError);
    expect(() => p.acquire("http-module")).toThrow("http-module module address is unknown");
  });

  test("register maps a module to its address and dials lazily on first use", () => {
    const { p, dialed } = pool();
    p.register("a", "h:1");
    expect(p.address("a")).toBe("h:1");
    expect(dialed).toHaveLength(0);
    const lease = p.acquire("a");
    expect(lease.conn.address).toBe("h:1");
    expect(dialed).toHaveLength(1);
  });

  test("prewarm dials on register", () => {
    const { p, dialed } = pool(true);
    p.register("a", "h:1");
    expect(dialed.map((c) => c.address)).toEqual(["h:1"]);
  });

  test("modules at the same address share one connection", () => {
    const { p, dialed } = pool();
    p.register("a", "h:1");
    p.register("b", "h:1");
    const la = p.acquire("a");
    const lb = p.acquire("b");
    expect(la.conn).toBe(lb.conn);
    expect(dialed).toHaveLength(1);
  });

  test("deregister makes the module unknown and closes the connection once no module uses it", () => {
    const { p, dialed } = pool();
    p.register("a", "h:1");
    p.register("b", "h:1");
    p.acquire("a").release();
    p.deregister("a");
    expect(() => p.acquire("a")).toThrow("a module address is unknown");
    expect(dialed[0]!.closed).toBe(false);
    p.deregister("b");
    expect(dialed[0]!.closed).toBe(true);
    expect(p.openConnections).toBe(0);
  });

  test("a call in flight keeps its connection open until released", () => {
    const { p, dialed } = pool();
    p.register("a", "h:1");
    const lease = p.acquire("a");
    p.deregister("a");
    expect(dialed[0]!.closed).toBe(false);
    lease.release();
    lease.release(); // a second release is ignored
    expect(dialed[0]!.closed).toBe(true);
  });

  test("re-registering a module at a new address releases the old connection", () => {
    const { p, dialed } = pool();
    p.register("a", "h:1");
    p.acquire("a").release();
    p.register("a", "h:2");
    expect(dialed[0]!.closed).toBe(true);
    expect(p.acquire("a").conn.address).toBe("h:2");
  });

  test("re-registering the same address keeps the connection", () => {
    const { p, dialed } = pool();
    p.register("a", "h:1");
    p.acquire("a").release();
    p.register("a", "h:1");
    expect(p.acquire("a").conn).toBe(dialed[0]!);
    expect(dialed).toHaveLength(1);
  });

  test("an empty module name or address is rejected naming the other field", () => {
    const { p } = pool();
    expect(() => p.register("", "h:1")).toThrow('module name is empty (address "h:1")');
    expect(() => p.register("a", "")).toThrow('address of module "a" is empty');
  });

  test("close shuts every connection and forgets every module", () => {
    const { p, dialed } = pool(true);
    p.register("a", "h:1");
    p.register("b", "h:2");
    p.close();
    expect(dialed.every((c) => c.closed)).toBe(true);
    expect(p.entries()).toEqual([]);
  });
});
