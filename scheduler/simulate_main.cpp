// tricount-simulate: predicted scaling from a journal's measured task costs.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "scheduler/simulate.hpp"
#include "src/block_format.hpp"
#include "src/cli.hpp"
#include "src/json.hpp"

int main(int argc, char** argv) {
  using namespace tricount;
  return cli::run_main("tricount-simulate", [&] {
    cli::po::options_description opts("options");
    std::string journal_path, json, workers_list, input;
    int max_workers = 1024;
    double overhead = 0;
    opts.add_options()
      ("journal,j", cli::po::value(&journal_path)->required(), "journal written by tricount-count --journal")
      ("max-workers", cli::po::value(&max_workers)->default_value(1024), "predict for 1, 2, 4, ... up to this many workers")
      ("workers", cli::po::value(&workers_list), "comma-separated worker counts instead of powers of two")
      ("task-overhead", cli::po::value(&overhead)->default_value(0.0), "seconds added to every task (scheduler latency)")
      ("input,i", cli::po::value(&input),
       "the block file of the journal's run, for block sizes (default: the journal's input, if it is there): "
       "each virtual worker then pays for reading the blocks it uses, at the measured rate")
      ("no-loads", "replay task costs as measured, without modelling per-worker block reads")
      ("json", cli::po::value(&json), "also write the predictions as JSON to PATH (- for stdout)");
    cli::po::variables_map vm;
    if (!cli::parse(argc, argv, opts, vm, "tricount-simulate --journal PATH [--max-workers 1024]",
                    "Replays the task costs measured in a journal through the scheduler's own policy for P\n"
                    "virtual workers and prints the PREDICTED time, speedup, efficiency and imbalance."))
      return cli::kExitOk;
    // Each point replays every task over that many virtual workers (memory and time grow with it).
    constexpr int kMaxSimulatedWorkers = 1 << 16;
    if (max_workers < 1 || max_workers > kMaxSimulatedWorkers)
      throw UsageError("--max-workers must be between 1 and " + std::to_string(kMaxSimulatedWorkers) + " (got " +
                       std::to_string(max_workers) + "); for other counts give them with --workers");
    std::vector<int> counts;
    if (!workers_list.empty()) {
      std::stringstream ss(workers_list);
      std::string item;
      while (std::getline(ss, item, ',')) {
        try {
          const int w = std::stoi(item);
          if (w < 1 || w > kMaxSimulatedWorkers) throw std::invalid_argument(item);
          counts.push_back(w);
        } catch (const std::exception&) {
          throw UsageError("--workers: '" + item + "' is not a number between 1 and " + std::to_string(kMaxSimulatedWorkers));
        }
      }
    } else {
      for (int w = 1; w <= max_workers; w *= 2) counts.push_back(w);
    }
    const JournalContents journal = read_journal(journal_path);
    double measured_total = 0;
    for (const JournalRecord& r : journal.records) measured_total += r.seconds;
    // Block reads per virtual worker need the journal's load column and the block sizes.
    std::optional<BlockLoads> loads;
    std::string loads_note = "block reads replayed where they were measured (--no-loads)";
    if (!vm.count("no-loads")) {
      const bool given = !input.empty();
      if (!given) input = journal.identity.input;
      loads_note = "block reads replayed where they were measured: ";
      if (!given && !std::filesystem::exists(input)) {
        loads_note += "the journal's input '" + input + "' is not here (give --input)";
      } else {
        const BlockFileReader file(input);
        if (file.header().graph_checksum != journal.identity.graph_checksum || file.header().parts != journal.identity.parts)
          throw Error("'" + input + "' is not the graph of journal '" + journal_path + "' (other content or parts)");
        const std::uint32_t n = file.header().parts;
        std::vector<std::uint64_t> bytes;
        for (std::uint32_t i = 0; i < n; ++i)
          for (std::uint32_t j = 0; j < n; ++j)
            bytes.push_back((rows_in_class(file.header().vertices, n, i) + 1) * sizeof(eoff_t) +
                            file.block_nnz({i, j}) * sizeof(vid_t));
        loads = measured_block_loads(journal, std::move(bytes));
        if (loads) {
          char rate[64];
          std::snprintf(rate, sizeof rate, "%.3g GB/s", 1e-9 / loads->seconds_per_byte);
          loads_note = std::string("each virtual worker reads the blocks it uses at the measured ") + rate;
        }
        else
          loads_note += "the journal has no load column (written before it) or read nothing";
      }
    }
    std::FILE* out = json == "-" ? stderr : stdout;
    std::fprintf(out,
                 "PREDICTION, not a measurement: %zu measured task costs (%.3f s in all) from '%s', replayed through\n"
                 "the scheduler's policy (costliest first, block affinity) for P virtual workers; %s.\n",
                 journal.records.size(), measured_total, journal_path.c_str(), loads_note.c_str());
    std::fprintf(out, "%8s %14s %9s %11s %10s\n", "workers", "predicted_s", "speedup", "efficiency", "imbalance");
    std::vector<JsonObject> points;
    for (int w : counts) {
      const SimulationPoint p = simulate_schedule(journal, w, overhead, loads ? &*loads : nullptr);
      std::fprintf(out, "%8d %14.6f %9.3f %11.3f %10.3f\n", p.workers, p.predicted_seconds, p.speedup, p.efficiency,
                   p.imbalance);
      JsonObject o;
      o.add("workers", p.workers).add("predicted_seconds", p.predicted_seconds).add("speedup", p.speedup)
          .add("efficiency", p.efficiency).add("imbalance", p.imbalance);
      points.push_back(o);
    }
    if (!json.empty()) {
      JsonObject j;
      j.add("prediction", true).add("journal", journal_path).add("tasks", static_cast<std::uint64_t>(journal.records.size()))
          .add("measured_task_seconds", measured_total).add("block_loads_modelled", loads.has_value())
          .add("points", points);
      if (json == "-") {
        std::cout << j.str() << std::endl;
      } else {
        std::FILE* f = std::fopen(json.c_str(), "w");
        if (!f) throw Error("cannot write '" + json + "'");
        std::fprintf(f, "%s\n", j.str().c_str());
        std::fclose(f);
      }
    }
    return cli::kExitOk;
  });
}
