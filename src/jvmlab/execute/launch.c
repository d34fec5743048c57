/*
 * jvmlab-launch: run one command as the child of a tiny process, measured from that child alone.
 *
 * Why a separate process: a child forked (or vforked, or posix_spawned) from jvmlab's ~110 MB
 * Python process inherits Python's high-water RSS in ru_maxrss across exec, and a fork() of it
 * costs milliseconds. Forked from this static helper (a few hundred KiB), the child's ru_maxrss
 * is its own, the fork costs microseconds, and the clock is read here, next to fork and wait,
 * not in a Python thread that competes for the GIL.
 *
 * Usage: jvmlab-launch PARENT_PID CWD TIMEOUT_MS -- ARGV...
 *   fd 0, 1, 2 are handed to the child as they are (jvmlab sets them up); fd 3 is the report
 *   pipe. Every other fd this process inherited (an fd jvmlab's Python process, a library of it
 *   or jvmlab's own parent left inheritable) is marked close-on-exec first: the child gets
 *   stdin, stdout and stderr only, whatever jvmlab inherited (an extra fd costs the JVM, and
 *   a pipe held open by a child can keep its reader waiting). The command's PATH lookup
 *   uses this process's environment (= the command's).
 * Report lines on fd 3 (times: CLOCK_MONOTONIC nanoseconds, the clock of Python's perf_counter):
 *   "S <pid> <t_start_ns>\n"  the child was forked (t_start: read just before fork)
 *   "F <errno>\n"             then: the child could not chdir or exec; nothing ran
 *   "E <t_end_ns> <wait status> <timed out 0/1> <utime_us> <stime_us> <maxrss_kib> <minflt> <majflt>
 *      <nvcsw> <nivcsw>\n"    or: the child exited (t_end: read as soon as waitid saw the exit)
 * Between fork and exit this process sleeps in waitid: nothing of jvmlab's runs or wakes up
 * because of it while the child runs (jvmlab waits for this process to exit, then reads).
 * TIMEOUT_MS > 0: the child's whole group is killed with SIGKILL after that long.
 *
 * Guarantees: the child leads its own process group (setpgid), so the whole group can be
 * killed. It stays in jvmlab's session on purpose: setsid() would also put it in a new
 * scheduler autogroup (CONFIG_SCHED_AUTOGROUP), which on a busy machine gives it a different
 * share of the CPU than a child of hyperfine or of a shell gets (measured: a JDK 17 -version
 * 25-30 % slower under load). Its stdin is /dev/null, so the terminal is no concern. When jvmlab dies, even
 * by SIGKILL, this helper gets SIGTERM (parent-death signal) and kills the child's whole group;
 * the child also has its own parent-death SIGKILL in case this helper is killed outright. Both
 * check getppid() after prctl, closing the race of a parent that died first. After the child
 * exits, what it left in its group is killed while the zombie still holds the group id, then
 * the child is reaped with wait4 for its rusage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define REPORT_FD 3

static volatile sig_atomic_t child_pid = 0;
static volatile sig_atomic_t timed_out = 0;

static void on_timeout(int sig) {
    (void)sig;
    if (child_pid > 0) {
        timed_out = 1;
        killpg(child_pid, SIGKILL);
        kill(child_pid, SIGKILL);
    }
}

static void on_parent_death(int sig) {
    (void)sig;
    if (child_pid > 0) {
        killpg(child_pid, SIGKILL);
        kill(child_pid, SIGKILL);
    }
    _exit(125);
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_us(struct timeval tv) {
    return (long long)tv.tv_sec * 1000000LL + tv.tv_usec;
}

/* Every fd above 2 close-on-exec: close_range (Linux 5.11+), else each fd /proc lists. */
static void cloexec_above_stderr(void) {
    DIR *dir;
    struct dirent *entry;
    int fd, own;
#if defined(SYS_close_range)
    if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0) return;
#endif
    dir = opendir("/proc/self/fd");
    if (dir == NULL) {
        for (fd = 3; fd < 1024; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
        return;
    }
    own = dirfd(dir);
    while ((entry = readdir(dir)) != NULL) {
        fd = atoi(entry->d_name);
        if (fd > 2 && fd != own) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    closedir(dir);
}

static void report(const char *line) {
    size_t len = strlen(line), done = 0;
    while (done < len) {
        ssize_t n = write(REPORT_FD, line + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += (size_t)n;
    }
}

static void child(const char *cwd, char **argv, pid_t launcher, int err_fd, sigset_t *old) {
    int code;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != launcher) _exit(127);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);  /* ignored here, and an ignored signal would stay so across exec */
    sigprocmask(SIG_SETMASK, old, NULL);
    if (chdir(cwd) == 0) execvp(argv[0], argv);
    code = errno;
    while (write(err_fd, &code, sizeof code) < 0 && errno == EINTR) {}
    _exit(127);
}

int main(int argc, char **argv) {
    char line[256];
    int errpipe[2], code = 0, status = 0;
    ssize_t got;
    sigset_t block, old;
    struct sigaction sa;
    struct rusage ru;
    struct itimerval timer;
    long timeout_ms;
    siginfo_t info;
    long long t0, t1;
    pid_t pid;

    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: jvmlab-launch PARENT_PID CWD TIMEOUT_MS -- ARGV...\n");
        return 124;
    }
    timeout_ms = atol(argv[3]);
    cloexec_above_stderr();  /* the report pipe (fd 3) included */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_parent_death;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);  /* a report nobody reads must not kill us before we kill the group */
    sa.sa_handler = on_timeout;
    sigaction(SIGALRM, &sa, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (getppid() != (pid_t)atol(argv[1])) return 125;  /* jvmlab died before prctl */
    if (pipe2(errpipe, O_CLOEXEC) != 0) return 126;

    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, &old);
    t0 = now_ns();
    pid = fork();
    if (pid == 0) child(argv[2], argv + 5, getppid(), errpipe[1], &old);
    if (pid < 0) {
        snprintf(line, sizeof line, "F %d\n", errno);
        report(line);
        return 0;
    }
    setpgid(pid, pid);  /* also here: the group exists before either process runs on */
    child_pid = pid;
    close(errpipe[1]);
    snprintf(line, sizeof line, "S %d %lld\n", (int)pid, t0);
    report(line);
    if (timeout_ms > 0) {
        memset(&timer, 0, sizeof timer);
        timer.it_value.tv_sec = timeout_ms / 1000;
        timer.it_value.tv_usec = (timeout_ms % 1000) * 1000;
        setitimer(ITIMER_REAL, &timer, NULL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);

    /* Wait without reaping: the zombie keeps the group id ours while leftovers are killed. */
    memset(&info, 0, sizeof info);
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {}
    t1 = now_ns();
    killpg(pid, SIGKILL);
    memset(&timer, 0, sizeof timer);
    setitimer(ITIMER_REAL, &timer, NULL);
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) return 126;
    }
    child_pid = 0;
    /* The child has exited: its end of the error pipe is closed; 4 bytes mean exec failed. */
    do got = read(errpipe[0], &code, sizeof code); while (got < 0 && errno == EINTR);
    if (got == (ssize_t)sizeof code) {
        snprintf(line, sizeof line, "F %d\n", code);
    } else {
        snprintf(line, sizeof line, "E %lld %d %d %lld %lld %ld %ld %ld %ld %ld\n", t1, status, (int)timed_out,
                 tv_us(ru.ru_utime), tv_us(ru.ru_stime), ru.ru_maxrss, ru.ru_minflt, ru.ru_majflt,
                 ru.ru_nvcsw, ru.ru_nivcsw);
    }
    report(line);
    return 0;
}
