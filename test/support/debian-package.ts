/**
 * Tools the tests and benchmarks take from Debian's packages (nats-server, wrk, chromium), installed on first
 * use with `apt-get` (as root, or through passwordless `sudo -n`) so a fresh machine needs no
 * manual step.
 */

const tried = new Set<string>();

/** How long an install keeps retrying while another apt-get or dpkg holds the package locks (ms). */
const LOCK_WAIT_MS = 10 * 60_000;
/** apt-get's words for a lock another installer holds (the only failure worth retrying). */
const HELD_LOCK = /could not get lock|unable to acquire|lock-frontend|is held by process/i;
/** Pause between attempts while the locks are held (ms). */
const RETRY_PAUSE_MS = 5_000;

function which(binary: string): string | null {
  return Bun.which(binary) ?? Bun.which(binary, { PATH: "/usr/sbin:/usr/bin" });
}

/**
 * The apt-get runs that install `pkg`, or null when this process cannot install (not root, no
 * passwordless sudo, no apt-get). dpkg's lock wait is set because a second suite or a helper may
 * be installing at the same moment: without it apt-get fails at once on the held lock.
 */
function aptRuns(pkg: string): string[][] | null {
  const isRoot = process.getuid?.() === 0;
  const sudo = isRoot ? [] : Bun.which("sudo") ? ["sudo", "-n"] : null;
  if (!sudo || !Bun.which("apt-get")) return null;
  const wait = ["-o", `DPkg::Lock::Timeout=${Math.round(LOCK_WAIT_MS / 1000)}`];
  return [
    [...sudo, "apt-get", ...wait, "update", "-qq"],
    [...sudo, "apt-get", ...wait, "install", "-y", "-qq", pkg],
  ];
}

function missing(binary: string, pkg: string, lastError: string): Error {
  const why = lastError.trim().split("\n").pop();
  return new Error(
    `${binary} is missing and could not be installed${why ? ` (apt-get: ${why})` : ""}: run \`sudo apt-get install -y ${pkg}\` (Debian package) and try again.`,
  );
}

/**
 * Path of `binary`, installing Debian package `pkg` when it is missing (once per process; retried
 * for up to LOCK_WAIT_MS while another installer holds apt's locks).
 * @throws Error with one line naming the package and the command to run when it cannot be installed.
 */
export function ensureDebianBinary(binary: string, pkg: string = binary): string {
  const found = which(binary);
  if (found) return found;
  let lastError = "";
  const runs = tried.has(pkg) ? null : aptRuns(pkg);
  tried.add(pkg);
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (runs) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    for (const argv of runs) lastError = Bun.spawnSync(argv, { env, stdout: "ignore", stderr: "pipe" }).stderr.toString();
    if (which(binary) || !HELD_LOCK.test(lastError) || Date.now() > deadline) break;
    Bun.sleepSync(RETRY_PAUSE_MS);
  }
  const after = which(binary);
  if (after) return after;
  throw missing(binary, pkg, lastError);
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
      const runs = aptRuns(pkg);
      let lastError = "";
      const deadline = Date.now() + LOCK_WAIT_MS;
      while (runs) {
        const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
        for (const argv of runs) {
          const proc = Bun.spawn(argv, { env, stdout: "ignore", stderr: "pipe" });
          lastError = await new Response(proc.stderr).text();
          await proc.exited;
        }
        if (which(binary) || !HELD_LOCK.test(lastError) || Date.now() > deadline) break;
        await Bun.sleep(RETRY_PAUSE_MS);
      }
      const after = which(binary);
      if (after) return after;
      throw missing(binary, pkg, lastError);
    })();
    installing.set(pkg, p);
  }
  return p;
}
