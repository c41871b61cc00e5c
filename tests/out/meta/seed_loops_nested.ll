; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<uint>" = type opaque
declare void @"MyOuterLoopEntry"()

declare void @"MyInnerLoopEntry"()

declare void @"MyLoopTerminal"()

@"Table" = external constant %"class.RWStructuredBuffer<uint>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !16, !21, !25 }
!wgc.spirv.entryPoints = !{ !26, !27, !28 }
!wgc.experimental.tags = !{ !29, !30 }
!llvm.ident = !{ !31 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<uint>"* @"Table", !"Table", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"MyOuterLoopEntry", i32 0 }
!8 = !{ i32 0, i32 20, i32 2, i32 4 }
!9 = !{ i32 1, i32 33, i32 2, !8 }
!10 = !{ !9 }
!11 = !{ !"MyInnerLoopEntry", i32 0 }
!12 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !11 }
!13 = !{ !12 }
!14 = !{ i32 1, i32 1, i32 1 }
!15 = !{ i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !7, i32 16, i32 -1, i32 20, !10, i32 21, !13, i32 4, !14, i32 131072, i32 8, i32 131073, i32 1 }
!16 = !{ void ()* @"MyOuterLoopEntry", !"MyOuterLoopEntry", null, null, !15 }
!17 = !{ !"MyLoopTerminal", i32 0 }
!18 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !17 }
!19 = !{ !18 }
!20 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !11, i32 16, i32 -1, i32 20, !10, i32 21, !19, i32 4, !14, i32 131072, i32 8, i32 131073, i32 1 }
!21 = !{ void ()* @"MyInnerLoopEntry", !"MyInnerLoopEntry", null, null, !20 }
!22 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !7 }
!23 = !{ !12, !22 }
!24 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !17, i32 16, i32 -1, i32 20, !10, i32 21, !23, i32 4, !14 }
!25 = !{ void ()* @"MyLoopTerminal", !"MyLoopTerminal", null, null, !24 }
!26 = !{ void ()* @"MyOuterLoopEntry", !"MyOuterLoopEntry" }
!27 = !{ void ()* @"MyInnerLoopEntry", !"MyInnerLoopEntry" }
!28 = !{ void ()* @"MyLoopTerminal", !"MyLoopTerminal" }
!29 = !{ !"NodeMaxLoopIterations", i32 131072 }
!30 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!31 = !{ !"wgc 0.1.0" }
