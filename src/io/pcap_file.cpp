#include "io/pcap_file.hpp"

#include "util/error.hpp"

#include <fmt/format.h>
#include <pcap/pcap.h>

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <type_traits>

namespace pdcheck::io {

namespace {

// libpcap is loaded with dlopen the first time a pcap is read, not linked:
// it brings eight more libraries (D-Bus, systemd, libgcrypt ...) that every
// other command would load at start-up for nothing. The header only gives the
// types and constants; these are the six functions pdcheck calls.
struct Pcap
{
  pcap_t* (*open_offline_with_tstamp_precision)(const char*, u_int, char*) = nullptr;
  int (*datalink)(pcap_t*) = nullptr;
  const char* (*datalink_val_to_name)(int) = nullptr;
  int (*next_ex)(pcap_t*, pcap_pkthdr**, const u_char**) = nullptr;
  char* (*geterr)(pcap_t*) = nullptr;
  void (*close)(pcap_t*) = nullptr;
};

/// Loads the library named by PDCHECK_PCAP_LIBRARY, else Debian's
/// libpcap.so.0.8. Throws CannotRun (exit 3) when it cannot be loaded or lacks
/// a function.
Pcap load_pcap()
{
  const char* env = std::getenv("PDCHECK_PCAP_LIBRARY");
  const std::string path = env != nullptr && *env != '\0' ? env : "libpcap.so.0.8";
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    throw CannotRun(fmt::format("reading a pcap needs libpcap: {} (install Debian's libpcap0.8)",
                                why != nullptr ? why : path));
  }
  Pcap p;
  const auto bind = [&](const char* symbol, auto& out) {
    out = reinterpret_cast<std::remove_reference_t<decltype(out)>>(::dlsym(library, symbol));
    if (out == nullptr) {
      ::dlclose(library);
      throw CannotRun(fmt::format("{} has no {}: not a usable libpcap (1.5 or newer)", path, symbol));
    }
  };
  bind("pcap_open_offline_with_tstamp_precision", p.open_offline_with_tstamp_precision);
  bind("pcap_datalink", p.datalink);
  bind("pcap_datalink_val_to_name", p.datalink_val_to_name);
  bind("pcap_next_ex", p.next_ex);
  bind("pcap_geterr", p.geterr);
  bind("pcap_close", p.close);
  return p; // the library stays loaded for the life of the process
}

const Pcap& pcap_library()
{
  // Initialised once, on first use; a load that throws is tried again next time.
  static const Pcap loaded = load_pcap();
  return loaded;
}

struct PcapCloser
{
  void operator()(pcap_t* p) const { pcap_library().close(p); }
};

std::string linktype_name(int linktype)
{
  const char* name = pcap_library().datalink_val_to_name(linktype);
  return name != nullptr ? name : "";
}

/// libpcap reads both formats through one API and reports pcap's version for
/// pcapng too, so the format is told by the first block's magic.
std::string file_format(const std::string& path)
{
  if (path == "-") {
    return "pcap or pcapng";
  }
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[4] = {};
  in.read(reinterpret_cast<char*>(magic), 4);
  return magic[0] == 0x0A && magic[1] == 0x0D && magic[2] == 0x0D && magic[3] == 0x0A ? "pcapng" : "pcap";
}

} // namespace

PcapSummary analyze_pcap(const std::string& path, const capture::AnalyzerOptions& options)
{
  const Pcap& lib = pcap_library();
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, PcapCloser> pcap(
    lib.open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf));
  if (!pcap) {
    // libpcap says e.g. "unknown file format", "truncated dump file; ..." or
    // "<path>: No such file or directory" (the path is said once, in front).
    std::string why = errbuf;
    if (why.rfind(path + ": ", 0) == 0) {
      why = why.substr(path.size() + 2);
    }
    throw InputError(path, fmt::format("cannot read as pcap or pcapng: {}", why));
  }
  PcapSummary summary;
  summary.linktype = lib.datalink(pcap.get());
  summary.linktype_name = linktype_name(summary.linktype);
  summary.format = file_format(path);
  const std::optional<capture::LinkType> link = capture::link_type_from_pcap(summary.linktype);
  if (!link) {
    throw InputError(path, fmt::format("link type {}{} is not one pdcheck reads; capture with tcpdump -i any or on "
                                       "an Ethernet or loopback interface ({})",
                                       summary.linktype,
                                       summary.linktype_name.empty() ? "" : " (" + summary.linktype_name + ")",
                                       capture::supported_link_types()));
  }
  capture::Analyzer analyzer(*link, options);
  std::uint64_t packet = 0;
  while (true) {
    pcap_pkthdr* header = nullptr;
    const u_char* data = nullptr;
    const int rc = lib.next_ex(pcap.get(), &header, &data);
    if (rc == PCAP_ERROR_BREAK) {
      break; // end of file
    }
    if (rc != 1) {
      throw InputError(fmt::format("{}: packet {}", path, packet + 1),
                       fmt::format("cannot read: {}", lib.geterr(pcap.get())));
    }
    ++packet;
    const capture::Timestamp t{static_cast<std::int64_t>(header->ts.tv_sec),
                               static_cast<std::uint32_t>(header->ts.tv_usec)}; // nanoseconds: NANO precision
    if (auto bad = analyzer.add(std::span<const std::uint8_t>(data, header->caplen), header->len, t)) {
      throw InputError(fmt::format("{}: packet {}", path, bad->packet), fmt::format("byte {}: {}", bad->offset, bad->what));
    }
  }
  summary.report = analyzer.finish();
  return summary;
}

} // namespace pdcheck::io
