/** The machine a benchmark run happened on, for bench/RESULTS.md. */
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { readFileSync } from "node:fs";

/** Facts about the machine and the tool versions. */
export interface MachineInfo {
  date: string;
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  bun: string;
  node: string;
  nats: string;
  loadAverage: number[];
}

function osName(): string {
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync("/etc/os-release", "utf8"));
    if (m) return `${m[1]} (${type()} ${release()})`;
  } catch {
    // no os-release
  }
  return `${type()} ${release()}`;
}

function version(cmd: string[]): string {
  try {
    const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
    return (r.stdout.toString() || r.stderr.toString()).trim().split("\n")[0] ?? "?";
  } catch {
    return "not installed";
  }
}

/** Reads the machine facts now. */
export function machineInfo(): MachineInfo {
  return {
    date: new Date().toISOString(),
    cpuModel: cpus()[0]?.model ?? "?",
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: osName(),
    bun: Bun.version,
    node: version(["node", "--version"]),
    nats: version(["nats-server", "--version"]),
    loadAverage: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}
