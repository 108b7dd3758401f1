#pragma once
// Where a command will write, checked before it spends any time on what goes there: a --junit
// in a missing folder, or an --out that is a file, found after a two-hour qualification run
// used to cost the run (exit 4 at the end); now it is bad input at the start (exit 2).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vsa {

// PATH will be written as a file: it must not be a directory, and its folder must exist and
// be writable (unless `folder_is_made`: the command creates it). Throws SuiteError naming FLAG.
void check_output_file(std::string_view flag, const std::string& path, bool folder_is_made = false);

// Whether FILE sits directly in DIR (both as given, relative to the working directory or not):
// a run's exports may go into its --out, which the run makes.
[[nodiscard]] bool directly_in(const std::string& file, const std::string& dir);

// No two of these (flag, path) pairs name one file (empty paths aside): --junit and --metrics
// on one path kept only the last export, and `render R.json --out R.json` replaced the report
// with its Markdown. Paths are compared as the file system resolves them (symlinks, "..").
// Throws SuiteError naming both flags.
void check_distinct_outputs(const std::vector<std::pair<std::string_view, std::string>>& outputs);

// No output names one of the command's inputs (a suite file, --floors, --resume, the report
// `repro --bundle` reads): `repro R.json --bundle R.json` replaced the report, `run s.json
// --jsonl s.json` the suite. Compared as check_distinct_outputs does; an input that is not a
// file there (a built-in suite's name) is none. Throws SuiteError naming both.
void check_outputs_spare_inputs(const std::vector<std::pair<std::string_view, std::string>>& outputs,
                                const std::vector<std::pair<std::string_view, std::string>>& inputs);

// No output is the folder (DIR_FLAG DIR) itself, or a folder above it, or a link to either:
// `run --out o --jsonl o` with o not yet made passed the file check (o's parent is writable),
// ran every case and then failed to write the export into the folder the run had made (exit 4).
// Throws SuiteError naming both flags.
void check_outputs_are_not_dir(const std::vector<std::pair<std::string_view, std::string>>& outputs,
                               std::string_view dir_flag, const std::string& dir);

// PATH is the folder reports go to, made later when missing (a run refused before then writes
// nothing): it must not be a file, and it or the nearest folder above it that exists must be
// writable. Throws SuiteError naming FLAG.
void check_output_dir(std::string_view flag, const std::string& path);

}  // namespace vsa
