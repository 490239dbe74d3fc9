// Spec strings: every name parses, specs round-trip, and every bad spec names its mistake.
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/spec.hpp>

#include <boost/hana/for_each.hpp>

#include <doctest/doctest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

using namespace loopsched;

TEST_CASE("every catalogue name parses, with and without the w- prefix") {
    auto names = policy_names();
    CHECK(names.size() == 24);
    for (auto name : names) {
        CAPTURE(name);
        CHECK(parse_policy(name).spec() == name);
        CHECK(parse_policy("w-" + std::string(name)).spec() == "w-" + std::string(name));
    }
}

TEST_CASE("specs with parameters round-trip to their canonical text") {
    for (std::string spec :
         {"gss:min=80", "gss:min=80,round=floor", "tss:first=125,last=2", "fss:alpha=1.5", "fiss:stages=4,x=7",
          "css:chunk=64", "dtss:a_min=6", "dfss:alpha=3,scale=100", "dfiss:stages=5", "dtfss:last=2",
          "wf:weights=1/0.5/2", "af:probe=10", "rnd:min=2,max=50,seed=9", "w-gss:min=80", "w-css:chunk=1250"}) {
        CAPTURE(spec);
        CHECK(parse_policy(spec).spec() == spec);
    }
    CHECK(parse_policy("fss:alpha=2").spec() == "fss"); // defaults are left out
}

TEST_CASE("every accepted spec survives parse(p.spec()) exactly") {
    // Exact reals, full 64-bit seeds, lists, the S adaptor's interval: each
    // combination that parses must print a spec that parses to an equal policy.
    std::vector<std::string> const values{"1",
                                          "2",
                                          "3",
                                          "7",
                                          "64",
                                          "2.0000001",
                                          "0.1",
                                          "1e-7",
                                          "1e+300",
                                          "-1",
                                          "0",
                                          "ceil",
                                          "floor",
                                          "auto",
                                          "4m",
                                          "1/0.3333333333333333/2.5",
                                          "18446744073709551615",
                                          "0.30000000000000004"};
    std::size_t accepted = 0;
    auto check = [&](std::string const& spec) {
        std::optional<any_policy> p;
        try {
            p.emplace(parse_policy(spec));
        } catch (error const&) {
            return; // refused: nothing to round-trip
        }
        ++accepted;
        CAPTURE(spec);
        std::string const text = p->spec();
        CAPTURE(text);
        auto const again = parse_policy(text);
        CHECK(again == *p);
        CHECK(again.spec() == text);
        CHECK(again.fingerprint() == p->fingerprint());
    };
    boost::hana::for_each(policy_catalogue, [&](auto t) {
        using P = typename decltype(t)::type;
        for (std::string prefix : {"", "w-", "s-", "sw-"}) {
            std::string const base = prefix + std::string(P::name);
            check(base);
            for (std::string_view key : P::keys)
                for (auto const& v : values) {
                    check(base + ":" + std::string(key) + "=" + v);
                    if (!prefix.starts_with("s")) continue;
                    for (std::string h : {"h=5", "h=auto", "h=2m"})
                        check(base + ":" + std::string(key) + "=" + v + "," + h);
                }
        }
    });
    CHECK(accepted > 500);

    CHECK(parse_policy("fss:alpha=2.0000001").spec() == "fss:alpha=2.0000001");
    CHECK(parse_policy("rnd:seed=18446744073709551615").spec() == "rnd:seed=18446744073709551615");
    auto message = [](std::string const& spec) {
        try {
            (void)parse_policy(spec);
        } catch (error const& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(message("rnd:seed=-1").find("'seed' expects an integer in [0, 2^64), got '-1'") != std::string::npos);
    CHECK(message("s-tss:h=1,h=2").find("parameter 'h' given twice") != std::string::npos);
    CHECK(message("sw-fsc:h=1,sigma=2,h=3").find("parameter 'h' given twice") != std::string::npos);
}

TEST_CASE("parse_policy builds the right type and parameters") {
    auto p = parse_policy("gss:min=80,round=floor");
    REQUIRE(p.target<gss>() != nullptr);
    CHECK(p.target<gss>()->min_chunk() == 80);
    CHECK(p.target<gss>()->round() == rounding::floor);
    CHECK(p == any_policy(gss(80, rounding::floor)));
    CHECK_FALSE(p == any_policy(gss(81, rounding::floor)));
    CHECK(parse_policy("w-fss").target<weighted<any_policy>>() != nullptr);
    CHECK(parse_policy("tss:first=125,last=1").target<tss>()->first() == 125);
}

namespace {
/// A policy whose state is too large to live inside any_state: it goes to the heap.
struct large_state_policy {
    struct state {
        std::array<index_t, 64> handed{}; // per worker
        index_t propose(request const& r) const { return 10 + handed[r.worker % 64] % 7; }
        void commit(request const& r, index_t n) { handed[r.worker % 64] += n; }
    };
    state start(loop_info const&) const { return {}; }
};
} // namespace

TEST_CASE("any_policy: a state proposes the same chunks after moves, whether held inline or on the heap") {
    loop_info const info{100000, 3, {}};
    std::vector<any_policy> policies{any_policy(large_state_policy{})};
    for (std::string spec : {"gss", "tss", "fss", "af", "w-fss", "dtss", "w-af"})
        policies.push_back(parse_policy(spec));
    for (auto const& policy : policies) {
        CAPTURE(policy.spec());
        any_state reference = policy.start(info);
        any_state moved(policy.start(info));
        any_state other = policy.start(loop_info{10, 1, {}});
        for (std::size_t k = 0; k < 12; ++k) {
            if (k == 3) moved = std::move(other = std::move(moved)); // through another state and back
            if (k == 6) {
                any_state constructed(std::move(moved));
                moved = std::move(constructed);
            }
            request const r{k % 3, {}, {}};
            index_t const expected = reference.propose(r);
            REQUIRE(expected > 0);
            CHECK(moved.propose(r) == expected);
            reference.commit(r, expected);
            moved.commit(r, expected);
        }
    }
}

TEST_CASE("bad spec strings raise spec_error naming the mistake and the valid choices") {
    auto message = [](std::string const& spec) {
        try {
            (void)parse_policy(spec);
        } catch (spec_error const& e) {
            return std::string(e.what());
        }
        return std::string("no spec_error");
    };
    CHECK(message("gs").find("unknown policy 'gs'") != std::string::npos);
    CHECK(message("gs").find("gss, tss, fss") != std::string::npos);
    CHECK(message("").find("unknown policy ''") != std::string::npos);
    CHECK(message("gss:minimum=3").find("no parameter 'minimum'; valid: min, round") != std::string::npos);
    CHECK(message("fac2:alpha=2").find("valid: none") != std::string::npos);
    CHECK(message("gss:min=eight").find("'min' expects an integer, got 'eight'") != std::string::npos);
    CHECK(message("fss:alpha=").find("'alpha' expects a finite number, got ''") != std::string::npos);
    CHECK(message("gss:round=up").find("one of: ceil, floor") != std::string::npos);
    CHECK(message("gss:min").find("expected key=value but got 'min'") != std::string::npos);
    CHECK(message("gss:").find("has ':' but no key=value") != std::string::npos);
    CHECK(message("gss:min=2,").find("ends with ','") != std::string::npos);
    CHECK(message("gss:min=2,min=3").find("given twice") != std::string::npos);
    CHECK(message("w-nope").find("unknown policy 'nope'") != std::string::npos);
    CHECK(message("wf:weights=1/x").find("'weights' expects a finite number, got 'x'") != std::string::npos);
}

TEST_CASE("bad parameter values in a spec raise invalid_parameter naming parameter and value") {
    auto check = [](std::string const& spec, std::string const& parameter, std::string const& value) {
        CAPTURE(spec);
        try {
            (void)parse_policy(spec);
            FAIL("no invalid_parameter");
        } catch (invalid_parameter const& e) {
            CHECK(e.parameter() == parameter);
            CHECK(e.value() == value);
            CHECK(std::string(e.what()).find(parameter + " = " + value) != std::string::npos);
        }
    };
    check("css:chunk=0", "css chunk k", "0");
    check("gss:min=0", "gss min chunk k", "0");
    check("tss:first=3,last=5", "tss first chunk F", "3");
    check("tss:last=0", "tss last chunk L", "0");
    check("tfss:last=0", "tfss last chunk L", "0");
    check("fss:alpha=0", "fss alpha", "0");
    check("fss:alpha=-1", "fss alpha", "-1");
    check("dfss:alpha=-2", "dfss alpha", "-2");
    check("fiss:stages=1", "fiss stages sigma", "1");
    check("fiss:stages=4,x=3", "fiss x", "3");
    check("dfiss:stages=1", "dfiss stages sigma", "1");
    check("dtss:last=0", "dtss last chunk L", "0");
    check("dtss:a_min=-1", "dtss a_min", "-1");
    check("dtss:scale=0", "dtss scale", "0");
    check("dtfss:scale=-3", "dtfss scale", "-3");
    check("wf:weights=1/0", "wf weight[1]", "0");
    check("af:probe=0", "af probe chunk", "0");
    check("rnd:min=5,max=3", "rnd max", "3");
    check("rnd:min=-1", "rnd min", "-1");
}

TEST_CASE("placements: every name parses and its spec round-trips; one parser for farms and trees") {
    for (auto name : placement_names()) {
        CAPTURE(name);
        auto const p = parse_placement(name);
        CHECK(p.spec() == name);
        CHECK(parse_placement(p.spec()) == p);
    }
    for (std::string spec : {"random:seed=7", "random:seed=18446744073709551615", "fss:alpha=2.0000001", "w-af",
                             "gss:min=4,round=floor"}) {
        CAPTURE(spec);
        auto const p = parse_placement(spec);
        CHECK(p.spec() == spec);
        CHECK(parse_placement(p.spec()) == p);
        CHECK(parse_placement(p.spec()).fingerprint() == p.fingerprint());
    }
    CHECK(parse_placement("random") == any_placement(random_placement{}));
    CHECK(parse_placement("ss").target<self_scheduling_placement>() != nullptr); // not the "ss" chunk policy
    CHECK(parse_placement("fss").policy() != nullptr);
    CHECK(parse_placement("dlpt").estimates() != nullptr);
    CHECK(parse_placement("steal-half") == any_placement(steal_placement(true)));
    CHECK_FALSE(parse_placement("random:seed=1") == parse_placement("random:seed=2"));
    auto message = [](std::string const& spec) {
        try {
            (void)parse_placement(spec);
        } catch (error const& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(message("lpt").find("unknown placement 'lpt' in spec 'lpt'; valid: kazouris, ss, april") !=
          std::string::npos);
    CHECK(message("random:sed=3").find("placement 'random' has no parameter 'sed'; valid: seed") != std::string::npos);
    CHECK(message("random:seed=-1").find("placement 'random' parameter 'seed' expects an integer") !=
          std::string::npos);
    CHECK(message("random:seed=1,seed=2").find("parameter 'seed' given twice to placement 'random'") !=
          std::string::npos);
    CHECK(message("kazouris:f=3").find("placement 'kazouris' has no parameter 'f'; valid: none") != std::string::npos);
    CHECK(message("dlpt:").find("placement spec 'dlpt:' has ':' but no key=value") != std::string::npos);
    CHECK(message("fss:alpha=0").find("fss alpha = 0") != std::string::npos); // the policy's own check
    // An option's placement given as a spec is parsed when the run checks it, naming the option.
    placement_choice const bad = "nope";
    CHECK_THROWS_WITH_AS((void)resolve(bad, "options.placement"),
                         doctest::Contains("invalid options.placement = nope (unknown placement 'nope'"),
                         invalid_parameter);
}

TEST_CASE("placements: loop mappings and tile mappings come from the one placement parser") {
    for (std::string_view name : {"dynamic", "block", "cyclic"}) {
        CAPTURE(name);
        any_placement const p = parse_placement(name);
        REQUIRE(p.mapping() != nullptr);
        CHECK(p.spec() == name);
        CHECK(parse_mapping(name) == *p.mapping());
        CHECK(parse_placement(p.spec()) == p);
    }
    for (std::string_view name : {"sds", "chains-cyclic", "cps", "acs"}) {
        CAPTURE(name);
        any_placement const p = parse_placement(name);
        REQUIRE(p.tiles() != nullptr);
        CHECK(p.spec() == name);
        CHECK(parse_doacross_mapping(name, {2, 3}) == doacross_mapping{p.tiles()->how, {2, 3}});
    }
    // "cyclic" alone: the loop's round robin, or the tiles' chains in round robin.
    CHECK(parse_doacross_mapping("cyclic").how == doacross_mapping::rule::cyclic);
    CHECK_THROWS_AS(parse_placement("block:n=2"), spec_error);
    CHECK_THROWS_WITH_AS(parse_mapping("sds"), doctest::Contains("mapping = sds (one of: dynamic, block, cyclic)"),
                         invalid_parameter);
    CHECK_THROWS_WITH_AS(parse_doacross_mapping("block"), doctest::Contains("mapping = block (one of: sds"),
                         invalid_parameter);
}

TEST_CASE("placements: a farm's two levels as a hierarchical value or its spec") {
    placement_choice const value = hierarchical{self_scheduling_placement{}, kazouris_placement{}, 4, true};
    REQUIRE(value.hierarchy() != nullptr);
    CHECK(value.spec() == "ss/kazouris");
    CHECK(value.hierarchy()->group_size == 4);
    CHECK(value.hierarchy()->sub_masters_compute);
    placement_choice const parsed = resolve(placement_choice("ss/kazouris"), "options.placement");
    REQUIRE(parsed.hierarchy() != nullptr);
    CHECK(parsed.hierarchy()->between == any_placement(self_scheduling_placement{}));
    CHECK(parsed.hierarchy()->within == any_placement(kazouris_placement{}));
    CHECK(parsed.hierarchy()->group_size == 0); // the hierarchy's defaults
    CHECK(resolve(placement_choice("dlpt"), "options.placement").placement() != nullptr);
    for (char const* bad : {"ss/", "/ss", "ss/ss/ss", "ss/nope"}) {
        CAPTURE(bad);
        std::string const expected = "invalid options.placement = " + std::string(bad);
        CHECK_THROWS_WITH_AS((void)resolve(placement_choice(bad), "options.placement"),
                             doctest::Contains(expected.c_str()), invalid_parameter);
    }
}
