// The process spawner (util/process.hpp): a child sees only its 0/1/2 (no pipe end of a
// sibling: issue 20's FAULT-read-as-HANG), dies with the thread that started it, and a
// program that cannot run is an error naming it.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/process.hpp"

namespace vsa {
namespace {

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, std::size_t(n));
  return text;
}

// The descriptor numbers /bin/ls finds open in itself (its own listing included).
std::vector<int> open_fds_of_a_child() {
  ChildProcess ls({"/bin/ls", "/proc/self/fd"}, SpawnStreams{.out = true});
  const std::string listing = read_all(ls.out_fd());
  EXPECT_EQ(exit_code_of_status(ls.wait()), 0);
  std::vector<int> fds;
  for (std::size_t pos = 0; pos < listing.size();) {
    const std::size_t nl = listing.find('\n', pos);
    fds.push_back(std::stoi(listing.substr(pos, nl - pos)));
    pos = nl == std::string::npos ? listing.size() : nl + 1;
  }
  return fds;
}

TEST(ChildProcess, ChildInheritsNoPipeOfASibling) {
  // What a child inherits anyway (0/1/2, its own listing, whatever the test runner left
  // open), then the same with a sibling running whose three streams are pipes.
  const std::vector<int> before = open_fds_of_a_child();
  ChildProcess sibling({"/bin/cat"}, SpawnStreams{.in = true, .out = true, .err = true});
  EXPECT_EQ(open_fds_of_a_child(), before) << "the second child inherited pipe ends of the first";
  sibling.close_in();  // cat sees EOF only because no other process holds its stdin
  EXPECT_EQ(read_all(sibling.out_fd()), "");
  EXPECT_EQ(exit_code_of_status(sibling.wait()), 0);
}

TEST(ChildProcess, StreamsAreConnected) {
  ChildProcess cat({"/bin/cat"}, SpawnStreams{.in = true, .out = true});
  ASSERT_EQ(::write(cat.in_fd(), "line\n", 5), 5);
  cat.close_in();
  EXPECT_EQ(read_all(cat.out_fd()), "line\n");
  EXPECT_EQ(exit_code_of_status(cat.wait()), 0);
}

TEST(ChildProcess, DiesWithItsParent) {
  // An intermediate process starts `sleep 30` and is killed; the sleep must not outlive it.
  int pid_pipe[2];
  ASSERT_EQ(::pipe(pid_pipe), 0);
  const pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    ::close(pid_pipe[0]);
    auto* child = new ChildProcess({"/bin/sleep", "30"}, SpawnStreams{});  // never destroyed
    const pid_t pid = child->pid();
    [[maybe_unused]] const ssize_t n = ::write(pid_pipe[1], &pid, sizeof pid);
    ::pause();
    ::_exit(0);
  }
  ::close(pid_pipe[1]);
  pid_t sleeper = -1;
  ASSERT_EQ(::read(pid_pipe[0], &sleeper, sizeof sleeper), ssize_t(sizeof sleeper));
  ::close(pid_pipe[0]);
  ::kill(middle, SIGKILL);
  ::waitpid(middle, nullptr, 0);
  // Gone, or a zombie waiting for whoever inherited it.
  auto alive = [&] {
    std::ifstream stat("/proc/" + std::to_string(sleeper) + "/stat");
    std::string pid, comm, state;
    if (!(stat >> pid >> comm >> state)) return false;
    return state != "Z";
  };
  for (int i = 0; i < 100 && alive(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive()) << "sleep (pid " << sleeper << ") outlived the process that started it";
  if (alive()) ::kill(sleeper, SIGKILL);
}

TEST(ChildProcess, ProgramThatCannotRunIsAnErrorNamingIt) {
  try {
    ChildProcess missing({"/nonexistent/tool", "--flag"}, SpawnStreams{.out = true});
    FAIL() << "spawning a missing program must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run /nonexistent/tool: No such file or directory"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ChildProcess({}, SpawnStreams{}), std::runtime_error);
}

TEST(ChildProcess, ExitStatusAndKill) {
  ChildProcess fails({"/bin/sh", "-c", "exit 7"}, SpawnStreams{});
  EXPECT_EQ(exit_code_of_status(fails.wait()), 7);
  ChildProcess sleeper({"/bin/sleep", "30"}, SpawnStreams{});
  EXPECT_FALSE(sleeper.try_wait().has_value());
  const int status = sleeper.kill_and_wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(exit_code_of_status(status), -1);
}

// Runs `body` in a child process whose fds 0, 1 and 2 are closed; true when it returns true.
template <class Body>
bool with_standard_fds_closed(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(0);
    ::close(1);
    ::close(2);
    ::_exit(body() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(ChildProcess, WorksWithTheParentsStandardFdsClosed) {
  // The pipes then take fds 0 and 1 (issue 20: every case FAULTed): the child must still
  // get them as its stdin and stdout.
  EXPECT_TRUE(with_standard_fds_closed([] {
    ChildProcess cat({"/bin/cat"}, SpawnStreams{.in = true, .out = true});
    if (::write(cat.in_fd(), "line\n", 5) != 5) return false;
    cat.close_in();
    return read_all(cat.out_fd()) == "line\n" && exit_code_of_status(cat.wait()) == 0;
  }));
}

TEST(KeepStandardFdsOpen, ClosedOnesBecomeDevNull) {
  EXPECT_TRUE(with_standard_fds_closed([] {
    keep_standard_fds_open();
    struct stat null_stat {};
    if (::stat("/dev/null", &null_stat) != 0) return false;
    for (int fd = 0; fd < 3; ++fd) {
      struct stat s {};
      if (::fstat(fd, &s) != 0 || s.st_rdev != null_stat.st_rdev || !S_ISCHR(s.st_mode)) return false;
    }
    // The next file opened takes a number above the standard three.
    const int fd = ::open("/dev/null", O_RDONLY);
    return fd > 2;
  }));
}

}  // namespace
}  // namespace vsa
