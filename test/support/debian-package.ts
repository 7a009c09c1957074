/**
 * Tools the tests and benchmarks take from Debian's packages (nats-server, wrk, chromium), installed on first
 * use with `apt-get` (as root, or through passwordless `sudo -n`) so a fresh machine needs no
 * manual step.
 */

const tried = new Set<string>();

function which(binary: string): string | null {
  return Bun.which(binary) ?? Bun.which(binary, { PATH: "/usr/sbin:/usr/bin" });
}

/**
 * Path of `binary`, installing Debian package `pkg` when it is missing (once per process).
 * @throws Error with one line naming the package and the command to run when it cannot be installed.
 */
export function ensureDebianBinary(binary: string, pkg: string = binary): string {
  const found = which(binary);
  if (found) return found;
  if (!tried.has(pkg)) {
    tried.add(pkg);
    const isRoot = process.getuid?.() === 0;
    const sudo = isRoot ? [] : Bun.which("sudo") ? ["sudo", "-n"] : null;
    if (sudo && Bun.which("apt-get")) {
      const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
      Bun.spawnSync([...sudo, "apt-get", "update", "-qq"], { env, stdout: "ignore", stderr: "ignore" });
      Bun.spawnSync([...sudo, "apt-get", "install", "-y", "-qq", pkg], { env, stdout: "ignore", stderr: "ignore" });
    }
  }
  const after = which(binary);
  if (after) return after;
  throw new Error(`${binary} is missing and could not be installed: run \`sudo apt-get install -y ${pkg}\` (Debian package) and try again.`);
}

const installing = new Map<string, Promise<string>>();

/**
 * {@link ensureDebianBinary} without blocking the event loop (the suite installs chromium while
 * the control plane starts): `apt-get` runs as a child process.
 * @throws Error with one line naming the package and the command to run when it cannot be installed.
 */
export function ensureDebianBinaryAsync(binary: string, pkg: string = binary): Promise<string> {
  const found = which(binary);
  if (found) return Promise.resolve(found);
  let p = installing.get(pkg);
  if (!p) {
    p = (async () => {
      const isRoot = process.getuid?.() === 0;
      const sudo = isRoot ? [] : Bun.which("sudo") ? ["sudo", "-n"] : null;
      if (sudo && Bun.which("apt-get")) {
        const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
        await Bun.spawn([...sudo, "apt-get", "update", "-qq"], { env, stdout: "ignore", stderr: "ignore" }).exited;
        await Bun.spawn([...sudo, "apt-get", "install", "-y", "-qq", pkg], { env, stdout: "ignore", stderr: "ignore" }).exited;
      }
      const after = which(binary);
      if (after) return after;
      throw new Error(`${binary} is missing and could not be installed: run \`sudo apt-get install -y ${pkg}\` (Debian package) and try again.`);
    })();
    installing.set(pkg, p);
  }
  return p;
}
