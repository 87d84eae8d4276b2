"""`python -m service keys add|remove|list` and the server's access flags (issue 50): a key
printed once on stdout's last line and only its hash kept; each bad keys file, rate or audit
path refused at start in one line naming the flag, the file and the line or field."""

from __future__ import annotations

import pytest

from common.keys.keyfile import read_keys
from service import ServiceConfig
from service.cli import main, startup_line
from service.keys_cli import main as keys


def test_add_prints_a_key_once_and_keeps_its_hash(tmp_path, capsys):
    path = tmp_path / "keys.toml"
    assert keys(["add", "ann", "--keys", str(path), "--groups", "hr,team-a",
                 "--scope", "team-a*:read", "--scope", "news=write"]) == 0
    key = capsys.readouterr().out.strip().splitlines()[-1]
    assert key.startswith("bsk_") and key not in path.read_text()
    ann = read_keys(path).named("ann")
    assert ann.groups == ("hr", "team-a") and ann.may("write", "news")
    assert ann.may("read", "team-a-x") and not ann.may("write", "team-a-x")
    assert read_keys(path).verify(key) == ann
    keys(["add", "ann", "--keys", str(path)])  # a second key; groups and scopes kept
    second = capsys.readouterr().out.strip().splitlines()[-1]
    assert read_keys(path).verify(second).groups == ("hr", "team-a")
    assert keys(["remove", "ann", "--keys", str(path), "--keep-newest"]) == 0  # rotation
    assert read_keys(path).verify(key) is None and read_keys(path).verify(second).name == "ann"
    assert keys(["remove", "ann", "--keys", str(path)]) == 0
    assert read_keys(path).principals == () and (path.stat().st_mode & 0o077) == 0
    with pytest.raises(SystemExit, match="no principal 'ann'"):
        keys(["remove", "ann", "--keys", str(path)])


@pytest.mark.parametrize("argv, says", [
    (["--scope", "team-a*:reed"], "the level must be one of read, write, admin"),
    (["--scope", "nolevel"], "must be PATTERN:LEVEL"),
    (["--groups", "bad group!"], "group 'bad group!'"),
])
def test_add_refuses_a_bad_scope_or_group(tmp_path, capsys, argv, says):
    with pytest.raises(SystemExit) as stopped:
        keys(["add", "ann", "--keys", str(tmp_path / "k.yaml"), *argv])
    assert stopped.value.code == 2 and says in capsys.readouterr().err


KEY_HASH = "scrypt$16$1$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="


@pytest.mark.parametrize("name, text, says", [
    ("empty.toml", "", "is empty"),
    ("binary.toml", b"\xff\xfe\x00binary", "is not UTF-8"),
    ("bad.toml", "[[principals]\n", "is not valid TOML"),
    ("dup.toml", f'[[principals]]\nname = "a"\nkeys = ["{KEY_HASH}"]\n'
                 f'[[principals]]\nname = "a"\nkeys = ["{KEY_HASH[:-2]}B="]\n',
     "(line 5): principals[1] ('a'): the name 'a' is given twice"),
    ("scope.yaml", f"principals:\n- name: a\n  keys: ['{KEY_HASH}']\n  scopes: {{news: reed}}\n",
     "principals[0] ('a').scopes: scope 'news' = 'reed'"),
    ("field.yaml", f"principals:\n- name: a\n  keys: ['{KEY_HASH}']\n  role: boss\n",
     "unknown field 'role'"),
    ("plain.toml", '[[principals]]\nname = "a"\nkeys = ["my-secret-key"]\n',
     "never the key itself"),
    ("keys.txt", "x", "ends in .toml, .yaml or .yml"),
])
def test_a_bad_keys_file_is_one_error_line(tmp_path, name, text, says):
    path = tmp_path / name
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    with pytest.raises(SystemExit) as stopped:
        main(["--index-root", str(tmp_path), "--keys", str(path)])
    said = str(stopped.value)
    assert said.startswith(f"error: --keys {path}") and says in said, said


def test_a_huge_keys_file_is_refused(tmp_path):
    path = tmp_path / "huge.toml"
    path.write_text("# " + "x" * (5 * 1024 * 1024))
    with pytest.raises(SystemExit, match="is over 4,194,304 bytes"):
        main(["--index-root", str(tmp_path), "--keys", str(path)])


@pytest.mark.parametrize("argv, says", [
    (["--keys", "{keys}", "--api-key-file", "{keys}"], "exclude each other"),
    (["--keys", "{keys}", "--rate-limit", "0"], "argument --rate-limit"),
    (["--keys", "{keys}", "--rate-limit", "-1"], "argument --rate-limit"),
    (["--keys", "{keys}", "--rate-limit", "inf"], "argument --rate-limit"),
    (["--keys", "{keys}", "--rate-limit", "nan"], "argument --rate-limit"),
    (["--keys", "{keys}", "--rate-limit", "lots"], "argument --rate-limit: 'lots' is not"),
    (["--rate-limit", "5/s"], "--rate-limit is per principal and needs --keys"),
    (["--keys", "{keys}", "--audit-log", "{folder}"], "--audit-log {folder}: is a folder"),
    (["--keys", "{keys}", "--audit-log", "{folder}/none/a.jsonl"], "--audit-log"),
])
def test_bad_access_flags_are_one_error_line(tmp_path, capsys, argv, says):
    path = tmp_path / "keys.toml"
    keys(["add", "ann", "--keys", str(path), "--scope", "*:read"])
    names = {"keys": str(path), "folder": str(tmp_path)}
    with pytest.raises(SystemExit) as stopped:
        main(["--index-root", str(tmp_path), *[a.format(**names) for a in argv]])
    said = str(stopped.value) if stopped.value.code != 2 else capsys.readouterr().err
    assert "error: " in said and says.format(**names) in said, said


def test_the_startup_line_says_who_may_read(tmp_path):
    assert "reads are open to anyone who can reach the port" in startup_line(ServiceConfig())
    keyed = ServiceConfig(keys_file=tmp_path / "k.toml", audit_log=tmp_path / "a.jsonl",
                          rate_limit=5.0)
    said = startup_line(keyed)
    assert "needs a Bearer key" in said and "5 requests a second" in said and "a.jsonl" in said


def test_keys_added_at_once_are_all_kept(tmp_path, capsys):
    import threading

    path = tmp_path / "keys.toml"
    threads = [threading.Thread(target=keys, args=(["add", f"p{i}", "--keys", str(path)],))
               for i in range(4)]  # the lock is a folder's flock: threads contend as processes
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bsk_")]
    ring = read_keys(path)
    assert sorted(p.name for p in ring.principals) == ["p0", "p1", "p2", "p3"]
    assert sorted(ring.verify(k).name for k in printed) == ["p0", "p1", "p2", "p3"]
