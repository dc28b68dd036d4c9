#include "check/bootstrap.hpp"
#include "check/checker.hpp"
#include "io/side_file.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace pdcheck;
using namespace pdcheck::check;

namespace {

std::string data(const std::string& rel)
{
  std::ifstream in(std::string(PDCHECK_SOURCE_DIR) + "/tests/data/bootstrap/" + rel, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string url_error(std::string_view text)
{
  try {
    parse_bootstrap_url(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

PrefillServerInfo info_of(const std::string& rel)
{
  const InfoParse p = parse_server_info(data(rel));
  INFO(p.problem);
  REQUIRE(p.info);
  return *p.info;
}

std::string problem_of(std::string_view body)
{
  const InfoParse p = parse_server_info(body);
  CHECK_FALSE(p.info);
  return p.problem;
}

sglang::Side decode_side(const std::string& file = "examples/bootstrap/decode.yaml")
{
  return io::load_side_file(std::string(PDCHECK_SOURCE_DIR) + "/" + file);
}

const PrefillFact& fact(const PrefillFromServer& p, std::string_view name)
{
  for (const PrefillFact& f : p.facts) {
    if (f.name == name) {
      return f;
    }
  }
  FAIL("no fact " << name);
  throw std::logic_error("unreachable");
}

std::vector<const Finding*> findings_of(const CheckResult& r, std::string_view rule)
{
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings) {
    if (f.rule == rule) {
      out.push_back(&f);
    }
  }
  return out;
}

} // namespace

TEST_CASE("bootstrap URLs: plain HTTP host and port only", "[check][bootstrap]")
{
  CHECK(parse_bootstrap_url("http://10.0.0.1:8998").text == "http://10.0.0.1:8998");
  CHECK(parse_bootstrap_url("HTTP://prefill-0:9000/").port == 9000);
  CHECK(parse_bootstrap_url("prefill-0:8999").text == "http://prefill-0:8999");
  CHECK(parse_bootstrap_url("prefill-0").text == "http://prefill-0:8998");
  const BootstrapUrl v6 = parse_bootstrap_url("http://[fd00::1]:8998");
  CHECK(v6.host == "fd00::1");
  CHECK(v6.text == "http://[fd00::1]:8998");

  CHECK(url_error("https://prefill-0:8998") ==
        "https://prefill-0:8998: the SGLang bootstrap server speaks plain HTTP only (no TLS); give http://HOST:PORT");
  CHECK(url_error("ftp://prefill-0") == "ftp://prefill-0: unsupported scheme 'ftp'; give http://HOST:PORT");
  CHECK(url_error("http://prefill-0:8998/route?engine_rank=-1") ==
        "http://prefill-0:8998/route?engine_rank=-1: give the server's address only, http://HOST:PORT, without a path "
        "or query (got '/route?engine_rank=-1')");
  CHECK(url_error("http://prefill-0:99999") ==
        "http://prefill-0:99999: the port must be a number from 1 to 65535, got '99999'");
  CHECK(url_error("http://prefill-0:") == "http://prefill-0:: the port must be a number from 1 to 65535, got ''");
  CHECK(url_error("http://:8998") == "http://:8998: no host; give http://HOST:PORT");
  CHECK(url_error("http://user@prefill-0") == "http://user@prefill-0: user names are not supported; give http://HOST:PORT");
  CHECK(url_error("fd00::1") == "fd00::1: write an IPv6 address in brackets, e.g. http://[::1]:8998");
  CHECK(url_error("") == "URL: expected the prefill bootstrap server as http://HOST:PORT");
}

TEST_CASE("server info of every known SGLang generation", "[check][bootstrap]")
{
  SECTION("tp-dp: whole TP and DP, attention TP derived")
  {
    const PrefillServerInfo i = info_of("tp-dp/info.json");
    CHECK(i.generation == InfoGeneration::tp_dp);
    CHECK(i.tp_size == 2);
    CHECK(i.attn_tp_size == 2);
    CHECK(i.dp_size == 1);
    CHECK(i.pp_size == 1);
    CHECK(i.attn_cp_size == 1);
    CHECK_FALSE(i.page_size);
    CHECK_FALSE(i.kv_cache_dtype);
    CHECK(i.unknown_keys.empty());
    const InfoParse dp = parse_server_info(R"({"prefill_tp_size": 16, "prefill_dp_size": 8})");
    REQUIRE(dp.info);
    CHECK(dp.info->attn_tp_size == 2);
  }
  SECTION("attn-tp-pp")
  {
    const PrefillServerInfo i = info_of("attn-tp-pp/info.json");
    CHECK(i.generation == InfoGeneration::attn_tp_pp);
    CHECK(i.attn_tp_size == 2);
    CHECK_FALSE(i.tp_size);
    CHECK(i.keys == std::vector<std::string>{"prefill_attn_tp_size", "prefill_dp_size", "prefill_pp_size"});
  }
  SECTION("server-info, 7 keys")
  {
    const PrefillServerInfo i = info_of("server-info-7/info.json");
    CHECK(i.generation == InfoGeneration::server_info);
    CHECK(i.page_size == 64);
    CHECK(i.kv_cache_dtype == "auto");
    CHECK(i.follow_bootstrap_room == true);
    CHECK_FALSE(i.prefill_http_port);
    CHECK(i.keys.size() == 7);
  }
  SECTION("server-info, 15 keys with the null rank-mapping fields")
  {
    const PrefillServerInfo i = info_of("server-info-15/info.json");
    CHECK(i.keys.size() == 15);
    CHECK(i.prefill_http_port == 30000);
    CHECK(i.enable_dsa_cache_layer_split == false);
    CHECK(i.unknown_keys.empty());
  }
  SECTION("a newer server's extra keys are kept aside")
  {
    const PrefillServerInfo i = info_of("future/info.json");
    CHECK(i.unknown_keys == std::vector<std::string>{"transfer_protocol_version"});
  }
  SECTION("null sizes: not registered yet")
  {
    for (const char* f : {"tp-dp/not-ready.json", "attn-tp-pp/not-ready.json"}) {
      const InfoParse p = parse_server_info(data(f));
      CHECK_FALSE(p.info);
      CHECK(p.not_ready);
    }
    CHECK(parse_server_info(data("attn-tp-pp/not-ready.json")).problem ==
          "prefill_attn_tp_size is null: no prefill rank has registered yet");
  }
  SECTION("null page size and dtype are allowed")
  {
    const InfoParse p = parse_server_info(
      R"({"attn_tp_size": 1, "attn_cp_size": 1, "dp_size": 1, "pp_size": 1, "page_size": null, "kv_cache_dtype": null, "follow_bootstrap_room": true})");
    REQUIRE(p.info);
    CHECK_FALSE(p.info->page_size);
    CHECK_FALSE(p.info->kv_cache_dtype);
  }
}

TEST_CASE("server info answers no SGLang sends", "[check][bootstrap]")
{
  CHECK(problem_of("<html><body>hello</body></html>") == "the answer is not JSON: '<html><body>hello</body></html>'");
  CHECK(problem_of("") == "the answer is not JSON: an empty body");
  CHECK(problem_of("[1, 2]") == "the answer is an array, not a JSON object");
  CHECK(problem_of(R"({"status": "ok"})") ==
        "the answer is not a PrefillServerInfo of any SGLang version pdcheck knows: it has no attn_tp_size, "
        "prefill_attn_tp_size or prefill_tp_size (keys: status)");
  CHECK(problem_of(R"({"attn_tp_size": "2", "attn_cp_size": 1, "dp_size": 1, "pp_size": 1})") ==
        "attn_tp_size is \"2\", expected an integer from 1 to 4096");
  CHECK(problem_of(R"({"attn_tp_size": 2, "dp_size": 1, "pp_size": 1})") == "attn_cp_size is missing");
  CHECK(problem_of(R"({"attn_tp_size": 0, "attn_cp_size": 1, "dp_size": 1, "pp_size": 1})") ==
        "attn_tp_size is 0, expected an integer from 1 to 4096");
  CHECK(problem_of(R"({"attn_tp_size": 2, "attn_cp_size": 1, "dp_size": 1, "pp_size": 1, "page_size": 1.5})") ==
        "page_size is 1.5, expected a positive integer or null");
  CHECK(problem_of(R"({"attn_tp_size": 2, "attn_cp_size": 1, "dp_size": 1, "pp_size": 1, "kv_cache_dtype": 8})") ==
        "kv_cache_dtype is 8, expected a string or null");
  CHECK(problem_of(R"({"prefill_tp_size": 6, "prefill_dp_size": 4})") ==
        "prefill_tp_size 6 is not a multiple of prefill_dp_size 4");
  CHECK(problem_of(R"({"attn_tp_size": 64, "attn_cp_size": 64, "dp_size": 64, "pp_size": 1})") ==
        "the answer describes 262144 prefill ranks (dp 64 × cp 64 × tp 64 × pp 1); pdcheck lists at most 65536");
}

TEST_CASE("rank queries in each generation's dialect", "[check][bootstrap]")
{
  PrefillServerInfo i = info_of("server-info-15/info.json");
  i.dp_size = 2;
  i.pp_size = 2;
  const std::vector<RankId> ids = rank_ids(i);
  REQUIRE(ids.size() == 8);
  CHECK(ids[0] == RankId{0, 0, 0, 0});
  CHECK(ids[1] == RankId{0, 0, 0, 1});
  CHECK(ids[2] == RankId{0, 0, 1, 0});
  CHECK(ids[7] == RankId{1, 0, 1, 1});
  CHECK(rank_label(ids[7]) == "dp 1 cp 0 tp 1 pp 1");
  CHECK(rank_target(i, ids[7]) == "/route?prefill_dp_rank=1&prefill_cp_rank=0&target_tp_rank=1&target_pp_rank=1");
  CHECK(rank_target(info_of("attn-tp-pp/info.json"), RankId{1, 0, 1, 2}) ==
        "/route?engine_rank=1&target_dp_group=1&target_pp_rank=2");
  CHECK(rank_target(info_of("tp-dp/info.json"), RankId{1, 0, 1, 0}) == "/route?engine_rank=1&target_dp_group=1");
}

TEST_CASE("rank endpoint answers", "[check][bootstrap]")
{
  const RankParse ok = parse_rank_info(data("server-info-15/rank-tp1.json"), RankId{0, 0, 1, 0});
  REQUIRE(ok.endpoint);
  CHECK(ok.endpoint->ip == "10.0.0.11");
  CHECK(ok.endpoint->port == 41002);
  CHECK(ok.endpoint->extra.empty());
  const RankParse newer = parse_rank_info(data("future/rank-tp0.json"), RankId{});
  REQUIRE(newer.endpoint);
  CHECK(newer.endpoint->extra["transport_protocol"] == "rdma");
  CHECK(parse_rank_info(R"({"rank_ip": "10.0.0.1"})", RankId{}).problem == "rank_port is missing");
  CHECK(parse_rank_info(R"({"rank_ip": "", "rank_port": 1})", RankId{}).problem == "rank_ip is \"\", expected an address");
  CHECK(parse_rank_info(R"({"rank_ip": "a", "rank_port": 70000})", RankId{}).problem ==
        "rank_port is 70000, expected a port from 1 to 65535");
  CHECK(parse_rank_info("OK", RankId{}).problem == "the answer is not JSON: 'OK'");
}

TEST_CASE("answers as one line", "[check][bootstrap]")
{
  CHECK(describe_answer(503, data("server-info-15/not-registered-503.txt")) ==
        "503 Prefill server not fully registered yet (1 workers registered).");
  CHECK(describe_answer(500, data("tp-dp/rank-missing-500.txt")) ==
        "500 500 Internal Server Error Server got itself in trouble");
  CHECK(describe_answer(404, "") == "404 (empty body)");
  CHECK(describe_answer(200, std::string(400, 'x')) == "200 " + std::string(160, 'x') + "… (240 bytes more)");
  CHECK(describe_answer(200, "bad\x1b[2Jserver") == "200 bad\\x1b[2Jserver"); // no escape sequence reaches a terminal
}

TEST_CASE("the prefill side built from the server info", "[check][bootstrap]")
{
  const sglang::Side decode = decode_side();
  SECTION("server-info: facts from the server, the rest assumed from the decode side")
  {
    const PrefillFromServer p = prefill_side_from_server(info_of("server-info-15/info.json"), decode, decode.profile,
                                                         decode.sglang, "http://10.0.0.1:8998");
    CHECK(p.side.role == sglang::Role::prefill);
    CHECK(p.side.origin == "http://10.0.0.1:8998");
    CHECK(p.side.args.disaggregation_mode == sglang::DisaggregationMode::prefill);
    CHECK(p.side.args.tp_size == 2);
    CHECK(p.side.args.page_size == 64);
    CHECK(p.side.model.name == decode.model.name);
    CHECK(fact(p, "attn_tp_size").source == FactSource::server);
    CHECK(fact(p, "page_size").source == FactSource::server);
    CHECK(fact(p, "prefill_http_port").value == 30000);
    CHECK(fact(p, "tp_size").source == FactSource::derived);
    CHECK(fact(p, "tp_size").why == "attn_tp_size × attn_cp_size");
    CHECK(fact(p, "model").source == FactSource::assumed);
    CHECK(fact(p, "sglang").why == "the decode side's; give --prefill-sglang when the prefill runs another SGLang");
    CHECK(fact(p, "state_dtypes").value == "conv bfloat16, ssm float32");
    CHECK(fact(p, "transfer_backend").value == "mooncake");
  }
  SECTION("DP groups are modelled as DP attention")
  {
    PrefillServerInfo i = info_of("server-info-15/info.json");
    i.dp_size = 4;
    i.attn_cp_size = 2;
    const PrefillFromServer p = prefill_side_from_server(i, decode, decode.profile, decode.sglang, "u");
    CHECK(p.side.args.tp_size == 16);
    CHECK(p.side.args.enable_dp_attention);
    CHECK(fact(p, "enable_dp_attention").source == FactSource::assumed);
    CheckInput in;
    in.prefill = p.side;
    in.decode = decode;
    CHECK(run_check(in).prefill_layout.attn_tp_size == 2);
  }
  SECTION("tp-dp: whole TP from the server, attention TP derived, the rest assumed")
  {
    const InfoParse parse = parse_server_info(R"({"prefill_tp_size": 16, "prefill_dp_size": 8})");
    const PrefillFromServer p = prefill_side_from_server(*parse.info, decode, decode.profile, decode.sglang, "u");
    CHECK(p.side.args.tp_size == 16);
    CHECK(fact(p, "tp_size").source == FactSource::server);
    CHECK(fact(p, "attn_tp_size").source == FactSource::derived);
    CHECK(fact(p, "enable_dp_attention").source == FactSource::derived);
    CHECK(fact(p, "pp_size").source == FactSource::assumed);
    CHECK(fact(p, "page_size").source == FactSource::assumed);
    CHECK(fact(p, "page_size").value == 64);
    CHECK(fact(p, "page_size").why ==
          "this server generation does not report it; SGLang's decode of that time did not check it");
  }
  SECTION("--prefill-sglang")
  {
    const Profile* old = find_profile("flat");
    REQUIRE(old);
    const PrefillFromServer p =
      prefill_side_from_server(info_of("server-info-15/info.json"), decode, *old, "flat", "u");
    CHECK(p.side.profile.name == "flat");
    CHECK(fact(p, "sglang").why == "from --prefill-sglang");
  }
  SECTION("a decode PP partition does not carry over to another prefill pp size")
  {
    sglang::Side d = decode;
    d.args.pp_size = 2;
    d.args.env["SGLANG_PP_LAYER_PARTITION"] = "24,24";
    const PrefillFromServer p = prefill_side_from_server(info_of("server-info-15/info.json"), d, d.profile, d.sglang, "u");
    CHECK(p.side.args.env.count("SGLANG_PP_LAYER_PARTITION") == 0);
    CHECK(fact(p, "SGLANG_PP_LAYER_PARTITION").source == FactSource::assumed);
  }
}

TEST_CASE("bootstrap checks run through the checker with SGLang's messages", "[check][bootstrap]")
{
  const sglang::Side good = decode_side();
  auto check_against = [](const PrefillServerInfo& info, const sglang::Side& decode) {
    CheckInput in;
    in.prefill = prefill_side_from_server(info, decode, decode.profile, decode.sglang, "u").side;
    in.decode = decode;
    return run_check(in);
  };
  SECTION("the example pairs: decode TP 4 scatters from attention TP 2")
  {
    const CheckResult r = check_against(info_of("server-info-15/info.json"), good);
    CHECK(r.passes(Severity::error));
    CHECK(r.pairs.size() == 4);
  }
  SECTION("page size")
  {
    const CheckResult r = check_against(info_of("server-info-15/info.json"), decode_side("examples/bootstrap/decode-page-size-1.yaml"));
    const auto f = findings_of(r, "bootstrap-page-size");
    REQUIRE(f.size() == 1);
    CHECK(*f[0]->runtime_error ==
          "RuntimeError: Page size mismatch: prefill server has page_size=64, but decode server has page_size=1. Both "
          "servers must use the same --page-size value.");
    CHECK_FALSE(r.passes(Severity::error));
  }
  SECTION("a page size the server does not report is not checked, as in SGLang")
  {
    PrefillServerInfo i = info_of("server-info-15/info.json");
    i.page_size.reset();
    const CheckResult r = check_against(i, decode_side("examples/bootstrap/decode-page-size-1.yaml"));
    CHECK(findings_of(r, "bootstrap-page-size").empty());
  }
  SECTION("KV cache dtype")
  {
    PrefillServerInfo i = info_of("server-info-15/info.json");
    i.kv_cache_dtype = "fp8_e4m3";
    const CheckResult r = check_against(i, good);
    const auto f = findings_of(r, "bootstrap-kv-cache-dtype");
    REQUIRE(f.size() == 1);
    CHECK(*f[0]->runtime_error ==
          "RuntimeError: KV cache dtype mismatch: prefill server has kv_cache_dtype=fp8_e4m3, but decode server has "
          "kv_cache_dtype=auto. Both servers must use the same --kv-cache-dtype value.");
  }
  SECTION("pp size")
  {
    PrefillServerInfo i = info_of("server-info-15/info.json");
    i.pp_size = 4;
    sglang::Side d = good;
    d.args.pp_size = 2;
    const CheckResult r = check_against(i, d);
    const auto f = findings_of(r, "bootstrap-pp-size");
    REQUIRE(f.size() == 1);
    CHECK(*f[0]->runtime_error ==
          "AssertionError: ('Decode pp size (2) should be equal to prefill pp size (4) or 1',)");
  }
  SECTION("aggregation: decode TP 4 pulls from two of prefill attention TP 8 each")
  {
    PrefillServerInfo i = info_of("server-info-15/info.json");
    i.attn_tp_size = 8;
    const CheckResult r = check_against(i, good);
    CHECK(r.pairs.size() == 8);
    CHECK(r.prefill_layout.attn_tp_size == 8);
  }
}

TEST_CASE("a running prefill's bootstrap server against the prefill's own launch", "[check][bootstrap]")
{
  // The prefill as its /server_info says it runs: attention TP 2, page size 64.
  sglang::Side prefill = decode_side();
  prefill.role = sglang::Role::prefill;
  prefill.origin = "http://p:30000 (SGLang 0.5.20)";
  prefill.args.tp_size = 2;
  ObservedBootstrap seen;
  seen.url = "http://p:8998";
  seen.info = info_of("server-info-15/info.json");
  seen.registered_ranks = 2;
  SECTION("the server answers for this prefill: nothing to report")
  {
    CHECK(bootstrap_findings(seen, prefill).empty());
    CHECK(bootstrap_note(seen) == "bootstrap server http://p:8998: 2 of 2 ranks registered");
  }
  SECTION("DP attention: attention TP 2 is tp 8 over dp 4")
  {
    prefill.args.tp_size = 8;
    prefill.args.dp_size = 4;
    prefill.args.enable_dp_attention = true;
    seen.info->dp_size = 4;
    CHECK(bootstrap_findings(seen, prefill).empty());
  }
  SECTION("another prefill's topology and page size on the port")
  {
    prefill.args.tp_size = 4;
    prefill.args.page_size = 1;
    const auto f = bootstrap_findings(seen, prefill);
    REQUIRE(f.size() == 1);
    CHECK(f[0].rule == "bootstrap-other-prefill");
    CHECK(f[0].severity == Severity::error);
    CHECK(f[0].message == "the bootstrap server at http://p:8998 reports attn_tp_size 2, page_size 64, but the "
                          "prefill at http://p:30000 (SGLang 0.5.20) runs attn_tp_size 4, page_size 1: another "
                          "prefill answers on its bootstrap port");
    CHECK(f[0].evidence["attn_tp_size"] == nlohmann::json{{"bootstrap_server", 2}, {"prefill", 4}});
  }
  SECTION("a page size the server leaves null is not compared")
  {
    prefill.args.page_size = 1;
    seen.info->page_size.reset();
    CHECK(bootstrap_findings(seen, prefill).empty());
  }
  SECTION("the first generation reports the whole TP size")
  {
    seen.info = info_of("tp-dp/info.json");
    CHECK(bootstrap_findings(seen, prefill).empty());
    prefill.args.tp_size = 8;
    const auto f = bootstrap_findings(seen, prefill);
    REQUIRE(f.size() == 1);
    CHECK(f[0].message.find("reports tp_size 2, but the prefill at http://p:30000 (SGLang 0.5.20) runs tp_size 8") !=
          std::string::npos);
  }
  SECTION("a server pdcheck could not read is a warning that says why")
  {
    seen.info.reset();
    seen.unread = "http://p:8998: cannot connect: Connection refused";
    const auto f = bootstrap_findings(seen, prefill);
    REQUIRE(f.size() == 1);
    CHECK(f[0].rule == "bootstrap-unreachable");
    CHECK(f[0].severity == Severity::warning);
    CHECK(f[0].message ==
          "pdcheck could not read the prefill's bootstrap server: http://p:8998: cannot connect: Connection refused");
    CHECK(bootstrap_note(seen) == "bootstrap server http://p:8998: not read");
  }
  SECTION("missing ranks: one finding each, after the topology")
  {
    prefill.args.page_size = 1;
    seen.registered_ranks = 1;
    seen.missing_ranks = {{RankId{0, 0, 1, 0}, "404 Not Found"}};
    const auto f = bootstrap_findings(seen, prefill);
    REQUIRE(f.size() == 2);
    CHECK(f[0].rule == "bootstrap-other-prefill");
    CHECK(f[1].rule == "bootstrap-rank-missing");
    CHECK(bootstrap_note(seen) == "bootstrap server http://p:8998: 1 of 2 ranks registered");
  }
  SECTION("the checker reports them with the pair's own findings")
  {
    seen.info->page_size = 1;
    CheckInput in;
    in.prefill = prefill;
    in.decode = decode_side();
    in.prefill_bootstrap = seen;
    const CheckResult r = run_check(in);
    REQUIRE(findings_of(r, "bootstrap-other-prefill").size() == 1);
  }
}
