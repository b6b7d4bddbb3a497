"""A full disk during the final write (issue 94's fault battery found it): before the fix a writer's
``OSError`` escaped as a traceback (exit 1) and left the hidden temporary file beside the output."""

import errno
import os

import pytest

import milp_anon.cli as cli
from milp_anon.runtime.errors import InputError
from milp_anon.tables.files import Outputs

CSV = "a;b;c\n1;x;p\n1;x;q\n1;y;p\n2;y;q\n2;y;q\n2;x;p\n"


def _full(fh):
    fh.write("a;b;c\n")
    raise OSError(errno.ENOSPC, "No space left on device")


def test_commit_on_a_full_disk_leaves_nothing(tmp_path):
    earlier = tmp_path / "out.csv"
    earlier.write_text("the earlier output\n")
    with Outputs() as outputs:
        p = outputs.add(str(earlier), "output")
        with pytest.raises(InputError, match=r"output .*out\.csv: cannot write .*No space left on device.*nothing written"):
            outputs.commit({p: _full})
    assert earlier.read_text() == "the earlier output\n"
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]  # no temporary file left


def test_solve_on_a_full_disk_exit_2_one_line(tmp_path, capsys, monkeypatch):
    inp, out, rep = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "r.json"
    inp.write_text(CSV)
    out.write_text("the earlier output\n")
    monkeypatch.setattr(cli, "_table_writer", lambda frame, sep: _full)
    code = cli.main(["solve", str(inp), "--qi", "a,b,c", "--k", "2", "--sep", ";", "--out", str(out),
                     "--report", str(rep), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "No space left on device" in err[0] and "Traceback" not in err[0], err
    assert out.read_text() == "the earlier output\n"
    assert sorted(os.listdir(tmp_path)) == ["in.csv", "out.csv"]  # no report (all or none), no temporary file
