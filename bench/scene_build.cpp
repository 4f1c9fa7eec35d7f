// Model construction from a scene file (bench/results/performance-rounds.md "Model construction
// from a scene"): the benchmark chain of bench/chain_model.hpp (N rigid3d rods on spherical
// joints, spinning at 1 rad/s about +z) written as a scene file, then loaded as `joinery`
// loads it (loadScene: read, strict parse, expansion, the bodies and joints through their
// factories, the flattened scene, ModelBuilder::build). Two modes:
//   scene_build --write FILE --N 65536   writes the scene file (indented by 2, as a user's)
//   scene_build FILE                     loads it once; one JSON line on stdout
// Loading runs in its own process so that the peak RSS is that of the load alone. Fields:
// file, bytes, bodies, joints, parse_s (readJsonFile: read and strict parse), load_s
// (sceneFromJson), free_s (destroying the scene and the parsed document), wall_s (the three),
// cpu_s (user + sys of the process over the three), peak_rss_mb (the process's high-water
// mark). bench/run_scene_build.sh runs it for several N and two builds side by side.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "chain_model.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/scene.hpp"
#include "program_allocator.hpp"  // apps/joinery: the allocator as the joinery program sets it up
#include "timing.hpp"

namespace {

double processCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double peakRssMegabytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // kB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  using namespace joinery;
  namespace bt = joinery::benchtiming;
  cli::configureProgramAllocator();
  const std::string write = bt::arg(argc, argv, "--write", "");
  if (!write.empty()) {
    const int N = std::stoi(bt::arg(argc, argv, "--N", "65536"));
    std::ofstream out(write);
    out << bench::chainScene(N, 1.0).dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "scene_build: cannot write %s\n", write.c_str());
      return 1;
    }
    return 0;
  }
  if (argc < 2 || argv[argc - 1][0] == '-') {
    std::fprintf(stderr, "usage: scene_build --write FILE --N N | scene_build FILE\n");
    return 2;
  }
  const std::string file = argv[argc - 1];
  const double c0 = processCpuSeconds(), t0 = bt::nowSeconds();
  std::optional<nlohmann::json> doc(readJsonFile(file));
  const double t1 = bt::nowSeconds();
  std::optional<Scene> scene(sceneFromJson(*doc, file));
  const double t2 = bt::nowSeconds();
  const std::size_t bodies = scene->model.bodies().size(), joints = scene->model.constraints().size();
  scene.reset();
  doc.reset();
  const double t3 = bt::nowSeconds(), c3 = processCpuSeconds();
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  std::printf(
      "{\"file\": \"%s\", \"allocator\": \"%s\", \"bytes\": %lld, \"bodies\": %zu, \"joints\": %zu, \"parse_s\": %.4f, \"load_s\": %.4f, "
      "\"free_s\": %.4f, \"wall_s\": %.4f, \"cpu_s\": %.4f, \"peak_rss_mb\": %.1f}\n",
      file.c_str(), cli::allocatorInUse().c_str(), static_cast<long long>(in.tellg()), bodies, joints, t1 - t0, t2 - t1, t3 - t2, t3 - t0, c3 - c0,
      peakRssMegabytes());
  return 0;
}
