#include "selftest/lint_rows.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "lint/lint.hpp"
#if defined(VSA_HAVE_SELFTEST_KERNELS)
#include "planted_lint_images.hpp"
#endif

namespace vsa {
namespace {

struct PlantedImage {
  std::string fault;
  std::string id;      // embedded image id = the lint rule that must fire
  std::string file;    // name of the fixture it was compiled from, for the row
  std::string kernel;  // mangled name of the kernel carrying the bug
};

const std::vector<PlantedImage>& planted_images() {
  static const std::vector<PlantedImage> images = {
      {"empty kernel image", lint::kRuleEmptyBody, "lint_empty_body.cubin",
       "_ZN3vsa5sm90a12lint_fixture12guarded_awayEPf"},
      // A real defect: the stage released before wgmma.wait_group (a shared load before a
      // release arrive is ordered by the release and is no finding, LINT.md).
      {"arrive before wait", lint::kRuleArriveBeforeWait, "lint_wgmma_arrive.cubin",
       "_ZN3vsa5sm90a12lint_fixture20planted_wgmma_arriveEPfmm"},
  };
  return images;
}

// The image in a temporary file (cuobjdump reads files), removed on scope exit.
class TempImage {
 public:
  TempImage(const unsigned char* data, std::size_t size) {
    std::string pattern = (std::filesystem::temp_directory_path() / "vsa-selftest-XXXXXX.cubin").string();
    const int fd = mkstemps(pattern.data(), 6);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file for the lint image");
    close(fd);
    m_path = pattern;
    std::ofstream out(m_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    if (!out) throw std::runtime_error("cannot write " + m_path);
  }
  TempImage(const TempImage&) = delete;
  TempImage& operator=(const TempImage&) = delete;
  ~TempImage() { std::remove(m_path.c_str()); }
  [[nodiscard]] const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

SelftestRow lint_row(const PlantedImage& p, const std::string& cuobjdump) {
  SelftestRow row{p.fault, "lint: " + p.file, "lint " + p.id, "", kMissed};
#if defined(VSA_HAVE_SELFTEST_KERNELS)
  const selftest::EmbeddedImage image = selftest::planted_lint_image(p.id);
  if (image.size == 0) {
    row.outcome = kNotRun;
    row.observed = "image not embedded in this build";
    return row;
  }
  try {
    const TempImage file(image.data, image.size);
    lint::LintOptions options;
    options.file = file.path();
    options.cuobjdump = cuobjdump;
    const lint::LintResult result = lint::lint_file(options);
    for (const auto& f : result.findings)
      if (f.rule == p.id && f.kernel == p.kernel) {
        row.outcome = kDetected;
        row.observed = f.rule + " at " + f.arch + (f.offset ? " " + sass::format_offset(*f.offset) : "") + " (" +
                       std::to_string(result.findings.size()) + " finding" + (result.findings.size() == 1 ? "" : "s") +
                       " in the image)";
        return row;
      }
    row.observed = std::to_string(result.findings.size()) + " findings, none " + p.id + " on the planted kernel";
  } catch (const sass::ToolError& e) {
    row.outcome = kNotRun;
    row.observed = first_line(e.what());
  }
#else
  (void)cuobjdump;
  row.outcome = kNotRun;
  row.observed = "this build has no selftest kernels (kernels/selftest)";
#endif
  return row;
}

}  // namespace

std::vector<SelftestRow> lint_selftest_rows(const std::string& cuobjdump) {
  std::vector<SelftestRow> rows;
  for (const auto& p : planted_images()) rows.push_back(lint_row(p, cuobjdump));
  return rows;
}

}  // namespace vsa
