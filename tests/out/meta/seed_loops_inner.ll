; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"MyLoopEntry"()

declare void @"MyLoopBody"()

declare void @"MyLoopTerminal"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !12, !17, !21 }
!wgc.spirv.entryPoints = !{ !22, !23, !24 }
!wgc.experimental.tags = !{ !25, !26 }
!llvm.ident = !{ !27 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"MyLoopEntry", i32 0 }
!4 = !{ i32 0, i32 12, i32 2, i32 4 }
!5 = !{ i32 1, i32 33, i32 2, !4 }
!6 = !{ !5 }
!7 = !{ !"MyLoopBody", i32 0 }
!8 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 1, i32 0, !7 }
!9 = !{ !8 }
!10 = !{ i32 1, i32 1, i32 1 }
!11 = !{ i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !3, i32 16, i32 -1, i32 20, !6, i32 21, !9, i32 4, !10, i32 131072, i32 32, i32 131073, i32 1 }
!12 = !{ void ()* @"MyLoopEntry", !"MyLoopEntry", null, null, !11 }
!13 = !{ !"MyLoopTerminal", i32 0 }
!14 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 1, i32 0, !13 }
!15 = !{ !14 }
!16 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !7, i32 16, i32 -1, i32 20, !6, i32 21, !15, i32 4, !10 }
!17 = !{ void ()* @"MyLoopBody", !"MyLoopBody", null, null, !16 }
!18 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 1, i32 0, !3 }
!19 = !{ !18 }
!20 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !13, i32 16, i32 -1, i32 20, !6, i32 21, !19, i32 4, !10 }
!21 = !{ void ()* @"MyLoopTerminal", !"MyLoopTerminal", null, null, !20 }
!22 = !{ void ()* @"MyLoopEntry", !"MyLoopEntry" }
!23 = !{ void ()* @"MyLoopBody", !"MyLoopBody" }
!24 = !{ void ()* @"MyLoopTerminal", !"MyLoopTerminal" }
!25 = !{ !"NodeMaxLoopIterations", i32 131072 }
!26 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!27 = !{ !"wgc 0.1.0" }
