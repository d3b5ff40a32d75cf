// kgen_cpu_sched.h: the lane scheduler of the CPU simulation drivers
// (runtime/verify's TestHIPQuantOnCPU and TestHIPRelativeOnCPU), after
// kgen_hip.h under -DKGEN_CPU_SIM. Each lane of a workgroup is a coroutine
// on its own stack; kg_sim_barrier() (kg_sync, shuffles, emulated MMAs)
// switches to the next lane, round robin. A lane starts through ucontext
// (makecontext gives it its stack) and every later switch is
// _setjmp/_longjmp: swapcontext saves the signal mask with a system call
// per switch, which made the barrier-heavy kernels (split-K, wave 64
// reductions) spend most of their time in the kernel.
#pragma once
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

kg_sim_lane kg_sim;
int kg_sim_grid_x = 1;  // the drivers set it before running a grid
uint32_t kg_sim_slots[1024];
static jmp_buf kg_sched_jb, kg_lane_jb[1024];
static ucontext_t kg_lane_ctx[1024];
static int kg_done[1024], kg_started[1024], kg_cur;
static void (*kg_lane_fn)(int);
static char* kg_stacks;
static int kg_stack_lanes;
static const size_t kg_stack = 1 << 16;

void kg_sim_barrier() {
  if (!_setjmp(kg_lane_jb[kg_cur])) _longjmp(kg_sched_jb, 1);
}

static void kg_lane_entry(int t) {
  kg_lane_fn(t);
  kg_done[t] = 1;
  _longjmp(kg_sched_jb, 1);  // never returns through uc_link
}

// kg_sim_workgroup runs workgroup (bx, by) of wg lanes, lane t calling
// lane(t), until every lane has finished. Lanes may finish at different
// rounds (a lane leaving kg_sync in the round it sees the last one arrive,
// a warp of a tensor-core tile with less work); it returns 3, after saying
// so, when some lanes finished while the others still wait at a barrier
// for more than grace rounds (barrier divergence), else 0.
static int kg_sim_workgroup(int wg, int bx, int by, void (*lane)(int), long grace) {
  if (wg < 1 || wg > 1024) {
    fprintf(stderr, "workgroup size %d (the simulation runs 1..1024 lanes)\n", wg);
    return 2;
  }
  if (wg > kg_stack_lanes) {
    free(kg_stacks);
    kg_stacks = (char*)malloc((size_t)wg * kg_stack);
    kg_stack_lanes = wg;
  }
  kg_lane_fn = lane;
  for (int t = 0; t < wg; t++) {
    getcontext(&kg_lane_ctx[t]);
    kg_lane_ctx[t].uc_stack.ss_sp = kg_stacks + (size_t)t * kg_stack;
    kg_lane_ctx[t].uc_stack.ss_size = kg_stack;
    kg_lane_ctx[t].uc_link = NULL;
    makecontext(&kg_lane_ctx[t], (void (*)())kg_lane_entry, 1, t);
    kg_done[t] = 0, kg_started[t] = 0;
  }
  for (long rounds = 0, last = 0;;) {
    int finished = 0;
    for (int t = 0; t < wg; t++) {
      if (kg_done[t]) {
        finished++;
        continue;
      }
      kg_cur = t;
      kg_sim.tid = t, kg_sim.bx = bx, kg_sim.by = by;
      if (!_setjmp(kg_sched_jb)) {
        if (!kg_started[t]) {
          kg_started[t] = 1;
          setcontext(&kg_lane_ctx[t]);
        }
        _longjmp(kg_lane_jb[t], 1);
      }
      if (kg_done[t]) finished++;
    }
    if (finished == wg) return 0;
    if (finished != last) last = finished, rounds = 0;
    if (finished > 0 && ++rounds > grace) {
      fprintf(stderr, "workgroup (%d, %d): %d of %d lanes finished while the others wait at a barrier\n", bx, by, finished, wg);
      return 3;
    }
  }
}
