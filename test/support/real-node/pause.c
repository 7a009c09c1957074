/* The pod sandbox's process (the "pause" container) for the real-node test bed, as Kubernetes'
 * build/pause/linux/pause.c does it: hold the pod's namespaces, reap orphaned children, exit 0
 * on SIGINT/SIGTERM. Built static with gcc (test/support/real-node/images.ts). */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void sigdown(int signo) { (void)signo; _exit(0); }
static void sigreap(int signo) {
  (void)signo;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction down = {.sa_handler = sigdown};
  struct sigaction reap = {.sa_handler = sigreap, .sa_flags = SA_NOCLDSTOP};
  if (sigaction(SIGINT, &down, NULL) < 0 || sigaction(SIGTERM, &down, NULL) < 0 || sigaction(SIGCHLD, &reap, NULL) < 0) return 1;
  for (;;) pause();
}
