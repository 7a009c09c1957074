import { expect, test } from "bun:test";
import { definitionName, titleCase } from "../../../src/runtime/schema/index.ts";

// Expected values produced by Go: cases.Title(language.English).String(s), golang.org/x/text v0.33.0.
test("titleCase matches Go's cases.Title on type-name shapes", () => {
  const cases: Array<[string, string]> = [
    ["ModifyInMessage", "Modifyinmessage"],
    ["out_get", "Out_get"],
    ["routeName", "Routename"],
    ["my-type", "My-Type"],
    ["a.b", "A.b"],
    ["x1y", "X1y"],
    ["HTTPServer", "Httpserver"],
    ["étéFoo", "Étéfoo"],
  ];
  expect(cases.map(([input]) => titleCase(input))).toEqual(cases.map(([, want]) => want));
});

test("definitionName prefers the last segment of $id over the fallback and drops pointer-unsafe characters", () => {
  expect(definitionName("https://example.com/schemas/UserInfo", "user")).toBe("Userinfo");
  expect(definitionName(undefined, "context")).toBe("Context");
  expect(definitionName("", "my field/x")).toBe("Myfieldx");
});
