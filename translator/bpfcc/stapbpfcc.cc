/*
 * stapbpfcc.cc - pass 4's compiler for stap --runtime=bpf: clang's C
 * front end and LLVM's BPF back end linked statically into one program
 * that does what `clang -target bpf -g -c -x c - -o -` does (the same
 * cc1 options its driver passes, so the same object byte for byte), and
 * only that. The translator runs it (translator/bpf/bpf_clang.c) when the
 * build made it (configure: clang's static libraries, libclang-14-dev),
 * else clang itself.
 *
 *   stapbpfcc [CC1-OPTION...] < C > NAME.bpf.o
 *
 * Why: most of a cold clang run on a small script is clang starting, not
 * compiling: ld.so relocating Debian's shared libLLVM-14 and libclang-cpp
 * (about 45% of its CPU, half of that the copy-on-write faults of the
 * relocated pages) before main(). Linked statically and not as PIE, this
 * program has no relocations to apply, and it holds only the BPF target
 * (bench/bpftrace.py, HACKING.md: a third of clang's CPU for the same
 * object). C++, as clang's API is; no state but main()'s.
 */
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <llvm/Passes/PassPlugin.h>

#include <cstdio>
#include <memory>
#include <vector>
#include <unistd.h>

extern "C" {
void LLVMInitializeBPFTargetInfo(void);
void LLVMInitializeBPFTarget(void);
void LLVMInitializeBPFTargetMC(void);
void LLVMInitializeBPFAsmPrinter(void);
}

/* clang's static CodeGen library names Polly's plugin, which Debian builds
 * into its shared libLLVM only: none here (an empty plugin) */
llvm::PassPluginLibraryInfo getPollyPluginInfo();
llvm::PassPluginLibraryInfo getPollyPluginInfo()
{
	return { LLVM_PLUGIN_API_VERSION, "none", "0", [](llvm::PassBuilder &) {} };
}

/* what clang 14's driver gives cc1 for `clang -target bpf -g -c -x c -`
 * (clang -###), less what names the working directory and the
 * -mllvm option the driver's cc1 parses: the caller's options go between
 * these and the input */
static const char *const cc1_head[] = {
	"-triple", "bpf", "-emit-obj", "--mrelax-relocations", "-disable-free",
	"-clear-ast-before-backend", "-disable-llvm-verifier", "-discard-value-names",
	"-main-file-name", "-", "-mrelocation-model", "static", "-mframe-pointer=all",
	"-fmath-errno", "-ffp-contract=on", "-fno-rounding-math", "-mconstructor-aliases",
	"-debug-info-kind=constructor", "-dwarf-version=5", "-debugger-tuning=gdb",
	"-resource-dir", STAPBPFCC_RESOURCE_DIR, "-ferror-limit", "19",
	"-fgnuc-version=4.2.1", "-faddrsig", "-D__GCC_HAVE_DWARF2_CFI_ASM=1",
};
static const char *const cc1_tail[] = { "-o", "-", "-x", "c", "-" };

int main(int argc, char **argv)
{
	std::vector<const char *> args(std::begin(cc1_head), std::end(cc1_head));
	llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
	llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> opts(new clang::DiagnosticOptions());
	auto *early = new clang::TextDiagnosticBuffer;
	clang::DiagnosticsEngine diags(ids, &*opts, early);
	auto ci = std::make_unique<clang::CompilerInstance>();
	bool ok;

	args.insert(args.end(), argv + 1, argv + argc);
	args.insert(args.end(), std::begin(cc1_tail), std::end(cc1_tail));
	LLVMInitializeBPFTargetInfo();
	LLVMInitializeBPFTarget();
	LLVMInitializeBPFTargetMC();
	LLVMInitializeBPFAsmPrinter();
	ok = clang::CompilerInvocation::CreateFromArgs(ci->getInvocation(), args, diags,
						       argv[0]);
	ci->createDiagnostics();
	if (!ci->hasDiagnostics())
		return 1;
	early->FlushDiagnostics(ci->getDiagnostics());
	if (ok) {
		clang::EmitObjAction act;

		ok = ci->ExecuteAction(act);
	}
	/* the object is written and closed: no teardown (as -disable-free) */
	std::fflush(stdout);
	std::fflush(stderr);
	_exit(ok ? 0 : 1);
}
