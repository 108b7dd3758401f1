"""Masks what legitimately differs between two runs of vsa-bench (same_behaviour.sh),
leaving every other byte of the file as it is: the values of the JSON keys "seconds",
"started_at", "finished_at", "git_sha" and "hostname"; timestamps, durations and git
shas in text; the paths of the two executables and of the work folder.
Usage: mask_run_fields.py FILE BIN_A BIN_B WORKDIR
"""
import re
import sys

JSON_KEYS = r'"(seconds|started_at|finished_at|git_sha|hostname)": ("(?:[^"\\]|\\.)*"|[-+0-9.eE]+|null)'


def mask(text, bin_a, bin_b, work):
    text = re.sub(JSON_KEYS, r'"\1": "<masked>"', text)
    for path in (bin_a, bin_b):
        text = text.replace(path, "<bin>")
    text = re.sub(re.escape(work) + r"/[ab]\b", "<work>", text)
    text = text.replace(work, "<work>")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d[:-]\d\d[:-]\d\dZ", "<time>", text)
    text = re.sub(r"\b\d+(\.\d+)?\s?(s|ms)\b", "<duration>", text)
    text = re.sub(r"\b[0-9a-f]{12}(-dirty)?\b", "<sha>", text)
    return text


def main():
    path, bin_a, bin_b, work = sys.argv[1:5]
    with open(path, encoding="utf-8", errors="replace") as f:
        sys.stdout.write(mask(f.read(), bin_a, bin_b, work))


if __name__ == "__main__":
    main()
