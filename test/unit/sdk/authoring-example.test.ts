// Keeps the docs/authoring.md example honest: the same component and tests, compiled and run.
import { expect, test } from "bun:test";
import { defineComponent, fail, ok, source, target, testComponent, Type } from "tinyhost";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const Settings = Type.Object({ greeting: Type.String({ default: "Hello" }) });
const In = Type.Object({ context: Type.Any(), name: Type.String({ minLength: 1 }) });
const Out = Type.Object({ context: Type.Any(), text: Type.String() });

const greet = defineComponent({
  info: { name: "greet", description: "Greet", info: "Builds a greeting", tags: ["SDK"] },
  state: () => ({ greeting: "Hello" }),
  ports: () => [target("_settings", Settings), target("in", In, { label: "In" }), source("out", Out, { label: "Out" })],
  onSettings: (ctx, s) => void (ctx.self.greeting = s.greeting),
  handle(ctx, output, _port, data) {
    if (data.name === "") return fail("nobody to greet"); // a missing name arrives as ""
    return output("out", { context: data.context, text: `${ctx.self.greeting}, ${data.name}` });
  },
});

test("the authoring guide's component greets with its settings and returns the downstream reply", async () => {
  const h = await testComponent(greet, { settings: { greeting: "Hi" } });
  h.respond("out", (data) => ok({ delivered: data }));
  const r = await h.send("in", { context: 1, name: "Ada" });
  expect(h.emitted).toEqual([{ port: "out", data: { context: 1, text: "Hi, Ada" } }]);
  expect(r).toEqual({ kind: "ok", value: { delivered: { context: 1, text: "Hi, Ada" } } });
});

test('the authoring guide\'s component fails a message without a name (decoded as "")', async () => {
  const h = await testComponent(greet);
  const r = await h.send("in", { context: 1 });
  expect(r.kind).toBe("fail");
});
