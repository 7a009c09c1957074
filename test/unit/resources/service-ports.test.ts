import { describe, expect, test } from "bun:test";
import { withServicePort, withoutServicePort } from "../../../src/k8s/resources/index.ts";

const grpc = { name: "grpc", port: 8483, targetPort: "grpc", protocol: "TCP" as const };

describe("withServicePort", () => {
  test("appends {name: port<N>, port: N, targetPort: N}", () => {
    expect(withServicePort([grpc], 8080)).toEqual([grpc, { name: "port8080", port: 8080, targetPort: 8080 }]);
  });

  test("leaves the list equal when a port with that number exists under any name", () => {
    const ports = [grpc, { name: "http", port: 8080, targetPort: 80 }];
    expect(withServicePort(ports, 8080)).toEqual(ports);
  });

  test("does not mutate its input", () => {
    const ports = [grpc];
    withServicePort(ports, 8080);
    expect(ports).toEqual([grpc]);
  });

  test("starts a list when the Service has none", () => {
    expect(withServicePort(undefined, 80)).toEqual([{ name: "port80", port: 80, targetPort: 80 }]);
  });
});

describe("withoutServicePort", () => {
  test("removes every entry with that number and keeps the others in order", () => {
    const ports = [grpc, { name: "port8080", port: 8080, targetPort: 8080 }, { name: "port9000", port: 9000, targetPort: 9000 }];
    expect(withoutServicePort(ports, 8080)).toEqual([grpc, { name: "port9000", port: 9000, targetPort: 9000 }]);
  });
});
