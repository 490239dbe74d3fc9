// spec_reference: writes docs/specs.md, the reference of every spec string
// parse_policy, parse_hierarchy and parse_placement accept, from the
// catalogues themselves (the names and keys) and the descriptions below.
//   spec_reference                 the page, on standard output
//   spec_reference --check FILE    fails, saying why, when FILE differs from the page,
//                                  when a catalogue key has no description here (or a
//                                  description no key), or when a documented default
//                                  does not parse to the same policy as no key at all
#include <loopsched/placement_spec.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/spec.hpp>

#include <boost/hana/for_each.hpp>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

using namespace loopsched;

namespace {

/// One key of a spec. `literal` is the default as the key would be written
/// (checked: NAME:key=literal must parse to the same policy as NAME); empty
/// when the default is computed from the loop, as `default_text` says.
struct key_doc {
    std::string_view key, literal, default_text, values, meaning;
};

struct scheme_doc {
    std::string_view what;
    std::vector<key_doc> keys;
};

/// `auto`'s section: its keys, checked against automatic::keys and, where a
/// default is written, against the policy made without the key.
std::string automatic_section(std::vector<std::string>& problems) {
    std::vector<key_doc> const keys{
            {"method", "exhaustive", "exhaustive", "`exhaustive`, `bandit`, `expert`", "how the next scheme is picked"},
            {"candidates", "", "static+ss+gss+fss+dtss+af", "specs joined by `+` (a candidate's own keys by `;`)",
             "the schemes to choose from, least adaptive first"},
            {"key", "", "the spec text", "text", "the loop's identity: executions with one key share their learning"},
            {"drift", "0.25", "0.25", "real > 0", "exhaustive: the change of the chosen scheme's time that starts new trials"},
            {"discount", "0.97", "0.97", "real in (0, 1]", "bandit: the weight a time keeps one execution later"},
            {"exploration", "0.3", "0.3", "real >= 0", "bandit: how far the index reaches beyond a mean time"},
            {"masterless", "false", "false", "`true`, `false`",
             "also try each candidate a loop without a master takes, without one ([loops without a master](masterless.md))"}};
    std::vector<std::string_view> described, known(automatic::keys.begin(), automatic::keys.end());
    for (auto const& k : keys) described.push_back(k.key);
    if (described != known) problems.push_back("auto: automatic::keys and the described ones differ");
    std::ostringstream out;
    out << "\n## Automatic selection (`auto`)\n\n"
           "`auto[:key=value,...]` chooses one of its candidates for each execution of a loop\n"
           "from the earlier executions' times ([automatic.md](automatic.md)); it takes no adaptor prefix.\n\n"
           "| key | default | values | meaning |\n|---|---|---|---|\n";
    for (auto const& k : keys) {
        out << "| `" << k.key << "` | " << k.default_text << " | " << k.values << " | " << k.meaning << " |\n";
        if (k.literal.empty()) continue;
        std::string const given = "auto:key=spec reference," + std::string(k.key) + "=" + std::string(k.literal);
        try {
            if (parse_policy(given).spec() != parse_policy("auto:key=spec reference").spec())
                problems.push_back("'" + given + "' is not the default: it reads " + parse_policy(given).spec());
        } catch (std::exception const& e) {
            problems.push_back("'" + given + "', the documented default, is refused: " + e.what());
        }
    }
    return out.str();
}

// The descriptions, by spec name. The names and keys themselves come from the
// catalogue: a scheme or key added there and not here fails --check.
std::map<std::string_view, scheme_doc> const& policy_docs() {
    // Keys several schemes share.
    key_doc const tss_first{"first", "0", "0: F = floor(I/(2p))", "integer >= 0", "TSS's first chunk F"};
    key_doc const tss_last{"last", "1", "1", "integer >= 1", "TSS's last chunk L"};
    key_doc const alpha{"alpha", "2", "2", "real > 1", "the batch divisor"};
    key_doc const stages{"stages", "3", "3", "integer >= 1", "the stages sigma"};
    key_doc const x{"x", "0", "0: X = sigma + 2", "real >= 0", "X, the first stage's divisor"};
    key_doc const a_min{"a_min", "1", "1", "integer >= 1", "the smallest A_k a worker gets"};
    key_doc const scale{"scale", "10", "10", "real > 0", "the scale of V_k / Q_k"};
    static std::map<std::string_view, scheme_doc> const docs{
            {"static", {"one chunk per worker, ceil(I/p)", {}}},
            {"ss", {"pure self-scheduling: one iteration per request", {}}},
            {"css",
             {"chunk self-scheduling CSS(k): every chunk k iterations",
              {{"chunk", "", "ceil(I/(2p))", "integer >= 1", "the chunk k"}}}},
            {"gss",
             {"guided self-scheduling: max(min, R/p), Polychronopoulos and Kuck",
              {{"min", "1", "1", "integer >= 1", "the smallest chunk"},
               {"round", "ceil", "ceil", "`ceil`, `floor`", "how R/p is rounded"}}}},
            {"tss",
             {"trapezoid self-scheduling: chunks fall linearly from F to L",
              {tss_first, tss_last}}},
            {"fss",
             {"factoring: batches of p chunks of R/(alpha p)",
              {alpha}}},
            {"fac2", {"practical factoring: batches of half of what remains", {}}},
            {"fiss",
             {"fixed increase: sigma stages, each chunk B larger than the last",
              {stages, x}}},
            {"tfss",
             {"trapezoid factoring: stages of p equal chunks, each the mean of the next p TSS chunks",
              {tss_first, tss_last}}},
            {"dtss",
             {"distributed TSS: each worker's chunk follows A_k = floor(scale V_k / Q_k)",
              {{"last", "1", "1", "integer >= 1", "the last chunk L per unit of A"}, a_min, scale}}},
            {"dfss",
             {"distributed FSS: batches split by A_k",
              {alpha, a_min, scale}}},
            {"dfiss",
             {"distributed FISS: stages split by A_k",
              {stages, x, a_min, scale}}},
            {"dtfss",
             {"distributed TFSS: stages split by A_k",
              {tss_last, a_min, scale}}},
            {"trees",
             {"tree scheduling (Kim and Purtilo): a first share each, then an idle worker takes half of a "
              "partner's running chunk; flat DOALL loops only",
              {{"shares", "even", "even", "`even`, `power` (by V_k)", "how the first shares are sized"}}}},
            {"wf",
             {"weighted factoring: FAC2's batches split by weight",
              {{"weights", "", "the ranks' powers V_k", "reals > 0 separated by `/`", "one weight per worker"}}}},
            {"awf", {"adaptive weighted factoring: weights from the measured times, per loop", {}}},
            {"awf-b", {"AWF-B: weights updated per batch, from the body's time", {}}},
            {"awf-c", {"AWF-C: weights updated per chunk, from the body's time", {}}},
            {"awf-d", {"AWF-D: weights updated per batch, from the chunk's whole time", {}}},
            {"awf-e", {"AWF-E: weights updated per chunk, from the chunk's whole time", {}}},
            {"af",
             {"adaptive factoring: chunks from each worker's measured mean and variance",
              {{"probe", "", "ceil(I/(16p))", "integer >= 1", "the chunk a worker gets until it has two measurements"}}}},
            {"fsc",
             {"fixed-size chunking (Kruskal and Weiss): k = ceil((sqrt(2) N h / (sigma P sqrt(ln P)))^(2/3))",
              {{"h", "", "h = sigma", "real > 0 (seconds)", "the overhead of scheduling one chunk"},
               {"overhead", "", "as h", "real > 0", "h's long name (under S, `h` is the interval)"},
               {"sigma", "", "h = sigma", "real > 0 (seconds)", "the standard deviation of one iteration's time"}}}},
            {"mfsc", {"LB4OMP's modified fixed-size chunk: a chunk from the loop's size alone", {}}},
            {"rnd",
             {"random chunk sizes in [min, max] (splitmix64, the same for every standard library)",
              {{"min", "0", "0: I/(100p)", "integer >= 0", "the smallest chunk"},
               {"max", "0", "0: I/(2p)", "integer >= 0", "the largest chunk"},
               {"seed", "1", "1", "integer in [0, 2^64)", "the generator's seed"}}}},
    };
    return docs;
}

struct placement_doc {
    std::string_view name, applies, what, keys;
};

// parse_placement's names besides the chunk policies, in placement_names() order.
std::vector<placement_doc> const& placement_docs() {
    static std::vector<placement_doc> const docs{
            {"kazouris", "farms, divide and conquer", "Kazouris's cost model: shares of the estimated work by speed, "
                                                      "redistribution between workers", ""},
            {"ss", "farms", "self-scheduling: one task per request", ""},
            {"april", "divide and conquer", "APRIL's binomial tree: children to fixed neighbours", ""},
            {"steal", "divide and conquer", "random work stealing, one task per steal, sized by speed", ""},
            {"steal-half", "divide and conquer", "random work stealing, half of the victim's queue", ""},
            {"dlpt", "farms, divide and conquer", "Karamcheti and Wah's D_LPT: largest estimate to the "
                                                  "earliest finishing worker", ""},
            {"random", "farms, divide and conquer", "a random worker (baseline)", "`seed` (integer, default 20260)"},
            {"round-robin", "farms, divide and conquer", "workers in turn (baseline)", ""},
            {"objects", "farms, divide and conquer", "the worker with the fewest objects (baseline)", ""},
            {"messages", "farms, divide and conquer", "the worker with the fewest pending messages (baseline)", ""},
            {"dynamic", "DOALL loops", "chunks to whichever worker asks (the default)", ""},
            {"block", "DOALL loops", "each chunk policy's chunks in static blocks, no master", ""},
            {"cyclic", "DOALL loops", "chunks dealt round robin, no master", ""},
            {"sds", "DOACROSS loops", "Ciorba's SDS: tiles along the optimal hyperplane, no master", ""},
            {"chains-cyclic", "DOACROSS loops", "chains of tiles dealt round robin", ""},
            {"cps", "DOACROSS loops", "chains by Ciorba's CPS", ""},
            {"acs", "DOACROSS loops", "chains by Ciorba's ACS, weighted by the ranks' powers", ""},
    };
    return docs;
}

std::string cell(std::string_view text) { return text.empty() ? std::string("-") : std::string(text); }

std::string page(std::vector<std::string>& problems) {
    std::ostringstream out;
    out << "# Spec reference\n\n"
           "Every spec string the library parses, generated from its catalogues by\n"
           "`examples/spec_reference.cpp`; a test fails when this page and the catalogues\n"
           "disagree. Unknown names and keys raise `spec_error` listing the valid ones;\n"
           "values out of range raise `invalid_parameter` naming the key and the value.\n\n"
           "## Chunk policies (`parse_policy`)\n\n"
           "A spec is `NAME[:key=value,...]`, e.g. `gss:min=4`. I is the loop's\n"
           "iterations, p the workers, R what remains.\n\n"
           "| spec | scheme | key | default | values | meaning |\n|---|---|---|---|---|---|\n";
    auto const& docs = policy_docs();
    std::size_t documented = 0;
    boost::hana::for_each(policy_catalogue, [&](auto t) {
        using P = typename decltype(t)::type;
        auto const it = docs.find(P::name);
        if (it == docs.end()) {
            problems.push_back("policy '" + std::string(P::name) + "' has no description in spec_reference.cpp");
            return;
        }
        ++documented;
        auto const& doc = it->second;
        std::vector<std::string_view> described;
        for (auto const& k : doc.keys) described.push_back(k.key);
        std::vector<std::string_view> const keys(P::keys.begin(), P::keys.end());
        if (described != keys)
            problems.push_back("policy '" + std::string(P::name) + "': the catalogue's keys and the described ones differ");
        if (doc.keys.empty()) {
            out << "| `" << P::name << "` | " << doc.what << " | - | - | - | - |\n";
            return;
        }
        bool first = true;
        for (auto const& k : doc.keys) {
            out << "| " << (first ? "`" + std::string(P::name) + "`" : std::string()) << " | "
                << (first ? std::string(doc.what) : std::string()) << " | `" << k.key << "` | " << cell(k.default_text)
                << " | " << k.values << " | " << k.meaning << " |\n";
            first = false;
            if (k.literal.empty()) continue;
            std::string const plain(P::name), given = plain + ":" + std::string(k.key) + "=" + std::string(k.literal);
            try {
                if (parse_policy(given).spec() != parse_policy(plain).spec())
                    problems.push_back("'" + given + "' is not the default: it reads " + parse_policy(given).spec());
            } catch (std::exception const& e) {
                problems.push_back("'" + given + "', the documented default, is refused: " + e.what());
            }
        }
    });
    if (documented != docs.size()) problems.push_back("spec_reference.cpp describes a policy the catalogue lacks");

    out << "\n## Adaptors and thresholds\n\n"
           "A prefix wraps any policy above; the keys go with the policy's own.\n\n"
           "| form | adaptor | keys |\n|---|---|---|\n"
           "| `"
        << weighted_prefix << "NAME` | W: the chunk times V_k / (V_max Q_k) | - |\n"
        << "| `" << synchronized_prefix
        << "NAME` | S: DOACROSS chunks pipelined, a synchronization every h positions | `h` = integer, `<k>m` "
           "(k points per worker) or `auto` (Ciorba's model); default `3m` |\n"
        << "| `" << synchronized_weighted_prefix << "NAME` | S over W | `h` as for S |\n"
        << "| `" << dmps_prefix << "NAME` | DMPS(A), NAME one of css, tss, dtss | `h` = integer, required |\n"
        << "| any | the clamped adaptor: chunk thresholds | `lower`, `upper` (integers >= 1); `thresholds` = "
           "`granted` (default: on the chunk handed out) or `scheme` (on the scheme's chunk, before W; needs W) |\n"
        << automatic_section(problems)
        << "\n## Hierarchies (`parse_hierarchy`, `parse_farm_hierarchy`)\n\n"
           "`BETWEEN/WITHIN`: the policy between the root and the sub-masters, then within\n"
           "each group, e.g. `fss/af`; one spec alone is used at both levels. A farm's\n"
           "hierarchy takes two placements, e.g. `ss/kazouris`.\n"
        << "\n## Placements (`parse_placement`)\n\n"
           "Besides these names, any chunk policy's spec above is a farm's placement (its\n"
           "chunks of tasks). DOALL mappings are also `parse_mapping`'s, DOACROSS ones\n"
           "`parse_doacross_mapping`'s.\n\n"
           "| spec | for | what | keys |\n|---|---|---|---|\n";
    auto const names = placement_names();
    auto const& placements = placement_docs();
    if (names.size() != placements.size())
        problems.push_back("placement_names() has " + std::to_string(names.size()) + " names, spec_reference.cpp describes " +
                           std::to_string(placements.size()));
    for (std::size_t i = 0; i < std::min(names.size(), placements.size()); ++i) {
        if (names[i] != placements[i].name)
            problems.push_back("placement " + std::to_string(i) + " is '" + std::string(names[i]) +
                               "' in the catalogue, '" + std::string(placements[i].name) + "' here");
        auto const& p = placements[i];
        out << "| `" << p.name << "` | " << p.applies << " | " << p.what << " | " << cell(p.keys) << " |\n";
        try {
            (void)parse_placement(p.name);
        } catch (std::exception const& e) {
            problems.push_back("placement '" + std::string(p.name) + "' is refused: " + e.what());
        }
    }
    return out.str();
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> problems;
    std::string const text = page(problems);
    if (argc == 3 && std::string_view(argv[1]) == "--check") {
        std::ifstream in(argv[2]);
        std::stringstream file;
        file << in.rdbuf();
        if (!in) problems.push_back(std::string("cannot read ") + argv[2]);
        else if (file.str() != text)
            problems.push_back(std::string(argv[2]) + " differs from the catalogue: regenerate it with "
                               "build/dev/examples/spec_reference > docs/specs.md");
    } else if (argc != 1) {
        std::cerr << "usage: spec_reference [--check docs/specs.md]\n";
        return 2;
    } else {
        std::cout << text;
    }
    for (auto const& p : problems) std::cerr << "spec_reference: " << p << '\n';
    return problems.empty() ? 0 : 1;
}
