"""OpenJ9 (Semeru 17/21) and Azul Prime: identification and flag checks on recorded outputs.

No such JVM can be installed here: a stub launcher replays what the real ones print (see
recorded_jdk.py). ``test_real_*`` switch on by themselves on a machine where discovery finds one.
"""

from __future__ import annotations

import pytest
from recorded_jdk import Rule, calls, identify_rule, make_home, recorded

from jvmlab.errors import UserError
from jvmlab.jdk import azul, openj9
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.discover import discover
from jvmlab.jdk.flags import check_flags
from jvmlab.jdk.identify import identify


@pytest.fixture
def cache(tmp_path):
    return JdkCache(tmp_path / "cache")


@pytest.mark.parametrize("folder, release, build, omr, feature", [
    ("openj9-17", "0.36.0", "openj9-0.36.0", "f491bbf6f", 17),
    ("openj9-21", "0.53.0", "openj9-0.53.0", "266a8c6f5", 21),
])
def test_openj9_banner(folder, release, build, omr, feature):
    parsed = openj9.parse_version(recorded(f"{folder}/version.txt"))
    assert (parsed.openj9, parsed.vm_build, parsed.omr_commit) == (release, build, omr)
    assert parsed.based_on.startswith(f"jdk-{feature}.")


def test_openj9_banner_of_an_old_ibm_build_without_release_number():
    text = ("IBM J9 VM (build 2.9, JRE 1.8.0 Linux amd64-64-Bit Compressed References 20180426_385464 "
            "(JIT enabled, AOT enabled)\nOpenJ9   - 4b971df\nOMR      - 35eb960\nIBM      - 4f87eeb)\n")
    parsed = openj9.parse_version(text)
    assert parsed.openj9 == "" and parsed.openj9_commit == "4b971df" and parsed.omr_commit == "35eb960"
    assert ("OpenJ9", "4b971df") in parsed.components()


@pytest.mark.parametrize("folder, feature, openj9_release", [("openj9-17", 17, "0.36.0"), ("openj9-21", 21, "0.53.0")])
def test_identify_openj9(tmp_path, cache, folder, feature, openj9_release):
    home = make_home(tmp_path, [identify_rule(folder)], release=recorded(f"{folder}/release"))
    info = identify(home, cache=cache)
    assert (info.vm_kind, info.feature, info.vendor, info.jit) == ("OpenJ9", feature, "IBM Corporation", "Testarossa")
    assert info.vm_version == f"openj9-{openj9_release}"
    components = dict(info.components)
    assert components["OpenJ9"] == openj9_release and components["JVM_VARIANT"] == "Openj9"
    assert "OMR source" in components
    # each GC policy was probed with -Xgcpolicy (the stub starts them all)
    probed = {a[0] for a in calls(home) if a and a[0].startswith("-Xgcpolicy:")}
    assert probed == {f"-Xgcpolicy:{p}" for p in openj9.GC_POLICIES}
    assert info.gcs == openj9.GC_POLICIES
    assert type(info).from_json(info.to_json()) == info


def test_identify_openj9_reports_a_policy_that_does_not_start(tmp_path, cache):
    rules = [identify_rule("openj9-17"),
             Rule(["-Xgcpolicy:metronome", "-version"], stderr="JVMJ9GC019E -Xgcpolicy:metronome not supported\n", code=1)]
    info = identify(make_home(tmp_path, rules), cache=cache)
    assert "metronome" not in info.gcs and "gencon" in info.gcs


def test_identify_prime(tmp_path, cache):
    home = make_home(tmp_path, [identify_rule("prime-17")])
    info = identify(home, cache=cache)
    assert (info.vm_kind, info.feature, info.gcs, info.jit) == ("Zing", 17, ("C4",), "Falcon")
    assert dict(info.components)["Prime"] == "22.01.0.0+2"
    assert not any("-XX:+UseG1GC" in a for call in calls(home) for a in call)  # no HotSpot GC probes on Prime


@pytest.mark.parametrize("line, prime", [
    ("Zing 64-Bit Tiered VM Zing22.07.1.0+1 (build 15.0.8-zing_22.07.1.0-b1-product-linux-X86_64, mixed mode)",
     "22.07.1.0+1"),
    ("Zing 64-Bit Tiered VM (Zing 21.12.0.0-b2-linux64) (build 1.8.0_312-zing_21.12.0.0-b3-product-linux-X86_64, "
     "mixed mode)", "21.12.0.0"),
    ("Zing 64-Bit Tiered VM 20.02.201.0+1 (product build 11.0.7-zing_20.02.201.0-b1-product-linux-X86_64, mixed mode)",
     "20.02.201.0+1"),
    ("Zing 64-Bit Tiered VM (build 1.8.0-zing_20.03.0.0-b1-product-linux-X86_64, mixed mode)", "20.03.0.0"),
])
def test_prime_banners(line, prime):
    assert azul.parse_version(line).prime == prime


def test_azul_zulu_is_hotspot():
    from jvmlab.jdk.identify import vm_kind_of

    assert vm_kind_of("OpenJDK 64-Bit Server VM", "Azul Systems, Inc.", "Zulu17.44+15-CA") == "HotSpot"
    assert vm_kind_of("Zing 64-Bit Tiered VM", "Azul Systems, Inc.", "Zing22.01.0.0+2") == "Zing"


def _openj9_home(tmp_path, error_file: str | None, trigger: str):
    """OpenJ9 ignores unknown -XX: options unless told otherwise: the stub refuses only then."""
    rules = [identify_rule("openj9-17")]
    if error_file:
        when = [openj9.REPORT_UNKNOWN_XX, trigger] if trigger.startswith("-XX:") else [trigger]
        rules.append(Rule(when, stderr=recorded(error_file), code=1))
    rules.append(Rule([openj9.VERBOSE_SIZES, "-version"], stdout=recorded("openj9-17/verbose-sizes.txt"),
                      stderr=recorded("openj9-17/version.txt")))
    return make_home(tmp_path, rules)


def test_openj9_unknown_xx_option_is_one_line_error(tmp_path, cache):
    home = _openj9_home(tmp_path, "openj9-17/unknown-xx.txt", "-XX:+UseG1GCC")
    jdk = identify(home, cache=cache)
    with pytest.raises(UserError) as err:
        check_flags(jdk, ["-Xmx512m", "-XX:+UseG1GCC"], cache=cache)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{jdk.describe()} rejects -XX:+UseG1GCC: Command-line option unrecognised: -XX:+UseG1GCC")
    assert message.endswith("fix or remove the flag")
    assert calls(home)[-1][0] == openj9.REPORT_UNKNOWN_XX


def test_openj9_unknown_x_option_gets_a_suggestion(tmp_path, cache):
    home = _openj9_home(tmp_path, "openj9-17/unknown-x.txt", "-Xquickstrat")
    with pytest.raises(UserError, match=r"rejects -Xquickstrat: .*\(did you mean '-Xquickstart'\?\)"):
        check_flags(identify(home, cache=cache), ["-Xquickstrat"], cache=cache)


def test_openj9_accepted_flags_report_final_sizes(tmp_path, cache):
    home = _openj9_home(tmp_path, None, "")
    check = check_flags(identify(home, cache=cache), ["-Xgcpolicy:balanced", "-Xmx512m"], cache=cache)
    assert check.flags == ("-Xgcpolicy:balanced", "-Xmx512m") and check.added_unlocks == ()
    assert check.final_values["mx"] == "512M" and check.final_values["lp:objectheap"] == "pagesize=4K,pageable"
    assert "-XX:+PrintFlagsFinal" not in calls(home)[-1]


def test_openj9_gc_policy_refusal_keeps_the_gc_message(tmp_path, cache):
    rules = [identify_rule("openj9-21"),
             Rule(["-Xgcpolicy:balanced"], stderr=recorded("openj9-21/gcpolicy-criu.txt"), code=1)]
    home = make_home(tmp_path, rules)
    with pytest.raises(UserError) as err:
        check_flags(identify(home, cache=cache), ["-XX:+EnableCRIUSupport", "-Xgcpolicy:balanced"], cache=cache)
    assert "-Xgcpolicy:balanced is currently unsupported with -XX:+EnableCRIUSupport" in str(err.value)
    assert "rejects -Xgcpolicy:balanced" in str(err.value)


def test_prime_unknown_option_uses_the_hotspot_check(tmp_path, cache):
    table = "     bool UseG1GC                                  = false                                {product} {default}\n"
    rules = [identify_rule("prime-17"),
             Rule(["-XX:+UseG1GCC"], stderr=recorded("prime-17/unknown-xx.txt"), code=1),
             Rule(["-XX:+PrintFlagsFinal"], stdout=table)]
    home = make_home(tmp_path, rules)
    with pytest.raises(UserError, match=r"rejects -XX:\+UseG1GCC: Unrecognized VM option 'UseG1GCC' "
                                        r"\(did you mean '-XX:\+UseG1GC'\?\)"):
        check_flags(identify(home, cache=cache), ["-XX:+UseG1GCC"], cache=cache)


def _discovered(kind: str):
    found = [j for j in discover() if j.vm_kind == kind]
    if not found:
        pytest.skip(f"no {kind} JDK on this machine (set JVMLAB_JDK_PATH to one to run this test)")
    return found[0]


@pytest.mark.jvm
def test_real_openj9():
    jdk = _discovered("OpenJ9")
    assert dict(jdk.components).get("OpenJ9") and jdk.jit == "Testarossa" and "gencon" in jdk.gcs
    assert "mx" in check_flags(jdk, ["-Xmx256m", "-Xgcpolicy:gencon"]).final_values
    with pytest.raises(UserError, match="unrecognised"):
        check_flags(jdk, ["-XX:+NoSuchOptionAtAll"])


@pytest.mark.jvm
def test_real_prime():
    jdk = _discovered("Zing")
    assert jdk.gcs == ("C4",) and dict(jdk.components).get("Prime")
    with pytest.raises(UserError, match="NoSuchOptionAtAll"):
        check_flags(jdk, ["-XX:+NoSuchOptionAtAll"])


def test_jvmlab_check_on_openj9_refuses_a_typo_in_one_line(tmp_path):
    """The CLI boundary: `jvmlab check` of a spec whose OpenJ9 cell has a typo exits 2 with one line."""
    from tests.cli_runner import run_jvmlab

    home = _openj9_home(tmp_path, "openj9-17/unknown-xx.txt", "-XX:+UseG1GCC")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "Hello.class").write_bytes(b"\xca\xfe\xba\xbe")  # only its presence is checked
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[workload]\nmain = "Hello"\nclasspath = "{tmp_path / "app"}"\n\n'
                    f'[jvms]\nsemeru = "{home}"\n\n[factors.gc]\ntypo = ["-XX:+UseG1GCC"]\n')
    proc = run_jvmlab("check", str(spec), cwd=tmp_path, env={"JVMLAB_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "rejects -XX:+UseG1GCC: Command-line option unrecognised: -XX:+UseG1GCC" in lines[0]
