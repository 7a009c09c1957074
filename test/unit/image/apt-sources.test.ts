/** The host's apt sources read for mmdebstrap (scripts/image/apt-sources.ts): both formats, one suite and its pockets. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { debEntries, hostDebEntries } from "../../../scripts/image/apt-sources.ts";

describe("debEntries", () => {
  test("one-line format: the suite and its pockets, not deb-src, comments or other suites", () => {
    const text = [
      "# a comment",
      "deb http://mirror.example/debian bookworm main contrib",
      "deb-src http://mirror.example/debian bookworm main",
      "deb [signed-by=/k.gpg arch=amd64] http://mirror.example/debian-security bookworm-security main # trailing",
      "deb http://mirror.example/debian trixie main",
      "deb http://mirror.example/debian bookworm2 main",
    ].join("\n");
    expect(debEntries(text, "bookworm", false)).toEqual([
      "deb http://mirror.example/debian bookworm main contrib",
      "deb [signed-by=/k.gpg arch=amd64] http://mirror.example/debian-security bookworm-security main",
    ]);
  });

  test("deb822 stanzas: every URI × matching suite, Signed-By kept as an option, disabled and deb-src stanzas dropped", () => {
    const text = [
      "Types: deb deb-src",
      "URIs: http://a.example/debian http://b.example/debian",
      "Suites: bookworm bookworm-updates trixie",
      "Components: main",
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg",
      "",
      "Types: deb",
      "URIs: http://c.example/debian",
      "Suites: bookworm",
      "Components: main",
      "Enabled: no",
      "",
      "Types: deb-src",
      "URIs: http://d.example/debian",
      "Suites: bookworm",
      "Components: main",
    ].join("\n");
    const k = "[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ";
    expect(debEntries(text, "bookworm", true)).toEqual([
      `deb ${k}http://a.example/debian bookworm main`,
      `deb ${k}http://a.example/debian bookworm-updates main`,
      `deb ${k}http://b.example/debian bookworm main`,
      `deb ${k}http://b.example/debian bookworm-updates main`,
    ]);
  });

  test("an inline Signed-By key (a multi-line value) is left out rather than broken onto one line", () => {
    const text = "Types: deb\nURIs: http://a.example/debian\nSuites: bookworm\nComponents: main\nSigned-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n xyz\n";
    expect(debEntries(text, "bookworm", true)).toEqual(["deb http://a.example/debian bookworm main"]);
  });
});

describe("hostDebEntries", () => {
  test("reads sources.list then sources.list.d/*.list and *.sources in name order, without duplicates", () => {
    const dir = mkdtempSync(join(tmpdir(), "apt-"));
    try {
      mkdirSync(join(dir, "sources.list.d"));
      writeFileSync(join(dir, "sources.list"), "deb http://a.example/debian bookworm main\n");
      writeFileSync(join(dir, "sources.list.d", "b.sources"), "Types: deb\nURIs: http://b.example/debian\nSuites: bookworm-security\nComponents: main\n");
      writeFileSync(join(dir, "sources.list.d", "a.list"), "deb http://a.example/debian bookworm main\ndeb http://z.example/debian bookworm-updates main\n");
      writeFileSync(join(dir, "sources.list.d", "c.txt"), "deb http://ignored.example/debian bookworm main\n");
      expect(hostDebEntries("bookworm", dir)).toEqual([
        "deb http://a.example/debian bookworm main",
        "deb http://z.example/debian bookworm-updates main",
        "deb http://b.example/debian bookworm-security main",
      ]);
      expect(hostDebEntries("trixie", dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
